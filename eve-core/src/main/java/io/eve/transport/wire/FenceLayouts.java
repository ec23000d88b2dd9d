package io.eve.transport.wire;

import io.eve.protocol.Message;
import io.eve.protocol.Message.FenceAnswer;
import io.eve.protocol.Message.FenceProbe;
import io.eve.protocol.Message.FenceReport;
import io.eve.protocol.Message.FenceRequest;
import io.eve.transport.wire.QuorumLayouts.Layout;
import java.util.function.Supplier;

/** Body layouts of primary-backup's fence messages (docs/protocol.md, "Wire format"). */
final class FenceLayouts {
    private FenceLayouts() {}

    static final Layout FENCE_REQUEST = new Layout() {
        @Override
        public long bodySize(Message message) {
            return 2 * Long.BYTES + 1;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            FenceRequest request = (FenceRequest) message;
            out.putLong(request.view());
            out.putBoolean(request.solo());
            out.putLong(request.requestId());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            byte solo = in.getByte("solo flag");
            long requestId = in.getLong("request id");
            return () -> new FenceRequest(view, ValueLayouts.flag(solo, "the solo flag"), requestId);
        }
    };

    static final Layout FENCE_ANSWER = new Layout() {
        @Override
        public long bodySize(Message message) {
            return 2 * Long.BYTES + 1 + Integer.BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            FenceAnswer answer = (FenceAnswer) message;
            out.putLong(answer.requestId());
            out.putLong(answer.view());
            out.putBoolean(answer.solo());
            out.putInt(answer.holder());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long requestId = in.getLong("request id");
            long view = in.getLong("view");
            byte solo = in.getByte("solo flag");
            int holder = in.getInt("holder");
            return () -> new FenceAnswer(requestId, view, ValueLayouts.flag(solo, "the solo flag"), holder);
        }
    };

    static final Layout FENCE_PROBE = new Layout() {
        @Override
        public long bodySize(Message message) {
            return Long.BYTES;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            out.putLong(((FenceProbe) message).nonce());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            FenceProbe probe = new FenceProbe(in.getLong("nonce"));
            return () -> probe;
        }
    };

    static final Layout FENCE_REPORT = new Layout() {
        @Override
        public long bodySize(Message message) {
            return 2 * Long.BYTES + 1;
        }

        @Override
        public void writeBody(Message message, FrameOutput out) {
            FenceReport report = (FenceReport) message;
            out.putLong(report.view());
            out.putBoolean(report.soloHeld());
            out.putLong(report.nonce());
        }

        @Override
        public Supplier<Message> readBody(FrameInput in) {
            long view = in.getLong("view");
            byte soloHeld = in.getByte("solo-held flag");
            long nonce = in.getLong("nonce");
            return () -> new FenceReport(view, ValueLayouts.flag(soloHeld, "the solo-held flag"), nonce);
        }
    };
}
