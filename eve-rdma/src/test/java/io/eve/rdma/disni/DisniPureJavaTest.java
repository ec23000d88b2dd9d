package io.eve.rdma.disni;

import static org.assertj.core.api.Assertions.assertThat;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import io.eve.rdma.RemoteAccessException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The parts of the DiSNI fabric that need no natives: work requests, signalling, completions, connection
 * parameters and the accept loop.
 */
class DisniPureJavaTest {

    @Test
    void shouldConnectWithSevenRetriesForLostAndNotReadyPackets() throws Exception {
        com.ibm.disni.verbs.RdmaConnParam param = ConnectionParameters.forRings();
        assertThat(param.getRetry_count()).isEqualTo((byte) 7);
        assertThat(param.getRnr_retry_count()).isEqualTo((byte) 7);
    }

    @Test
    void shouldKeepAcceptingAfterAFailedAndAnEmptyAccept() {
        // DiSNI's accept: an IOException, a spurious wake-up (null), two endpoints, then the fabric closes.
        Queue<Object> script = new ArrayDeque<>(List.of("failure", "null", "first", "second"));
        List<String> accepted = new CopyOnWriteArrayList<>();
        DisniFabric.acceptLoop(
                () -> {
                    Object next = script.poll();
                    if ("failure".equals(next)) {
                        throw new IOException("rdma_get_cm_event failed");
                    }
                    return "null".equals(next) ? null : (String) next;
                },
                script::isEmpty,
                accepted::add,
                7);
        assertThat(accepted).containsExactly("first", "second");
    }

    @Test
    void shouldNotInlineAboveTheQueuePairsLimit() {
        IbvSendWR refused = WorkRequests.write(3, 0, 48, 1, 0, 2, false, 0);
        assertThat(refused.getSend_flags() & IbvSendWR.IBV_SEND_INLINE).isZero();
        IbvSendWR large = WorkRequests.write(4, 0, 65, 1, 0, 2, false, 64);
        assertThat(large.getSend_flags() & IbvSendWR.IBV_SEND_INLINE).isZero();
    }

    @Test
    void shouldBuildAnRdmaWriteWorkRequest() {
        IbvSendWR request = WorkRequests.write(42, 0x1000, 256, 7, 0x9000, 730, false, 64);
        assertThat(request.getWr_id()).isEqualTo(42);
        assertThat(request.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE);
        assertThat(request.getSend_flags()).isZero();
        assertThat(request.getNum_sge()).isEqualTo(1);
        assertThat(request.getSge(0).getAddr()).isEqualTo(0x1000);
        assertThat(request.getSge(0).getLength()).isEqualTo(256);
        assertThat(request.getSge(0).getLkey()).isEqualTo(7);
        assertThat(request.getRdma().getRemote_addr()).isEqualTo(0x9000);
        assertThat(request.getRdma().getRkey()).isEqualTo(730);
    }

    @Test
    void shouldInlineSmallWritesAndSignalWhenAsked() {
        IbvSendWR small = WorkRequests.write(1, 0, 48, 1, 0, 2, true, 64);
        assertThat(small.getSend_flags()).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED | IbvSendWR.IBV_SEND_INLINE);
        IbvSendWR empty = WorkRequests.write(2, 0, 0, 1, 0, 2, true, 64);
        assertThat(empty.getNum_sge()).isZero();
        assertThat(empty.getSend_flags()).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
    }

    @Test
    void shouldSignalEveryNthWriteAndOnFlush() {
        SignalPolicy policy = new SignalPolicy(4);
        assertThat(new boolean[] {policy.next(false), policy.next(false), policy.next(false), policy.next(false)})
                .containsExactly(false, false, false, true);
        policy.next(false);
        assertThat(policy.unsignaled()).isEqualTo(1);
        assertThat(policy.next(true)).isTrue();
        assertThat(policy.unsignaled()).isZero();
    }

    @Test
    void shouldBuildADoorbellAsAZeroLengthWriteWithImmediateData() {
        IbvSendWR doorbell = WorkRequests.doorbell(77, 0x9000, 730, 2, true);
        assertThat(doorbell.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM);
        assertThat(doorbell.getImm_data()).isEqualTo(2);
        assertThat(doorbell.getSg_list()).isEmpty();
        assertThat(doorbell.getSend_flags() & IbvSendWR.IBV_SEND_INLINE).isZero();
        assertThat(doorbell.getSend_flags() & IbvSendWR.IBV_SEND_SIGNALED).isNotZero();
        assertThat(doorbell.getRdma().getRkey()).isEqualTo(730);
        assertThat(WorkRequests.doorbellReceive(78).getSg_list()).isEmpty();
        assertThat(WorkRequests.doorbellReceive(78).getWr_id()).isEqualTo(78);
    }

    @Test
    void shouldMapCompletionStatusesToExceptions() {
        assertThat(Completions.succeeded(IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal()))
                .isTrue();
        assertThat(Completions.failure(IbvWC.IbvWcStatus.IBV_WC_REM_ACCESS_ERR.ordinal(), 0, 9, 3))
                .isInstanceOf(RemoteAccessException.class)
                .hasMessageContaining("IBV_WC_REM_ACCESS_ERR")
                .hasMessageContaining("node 3");
        assertThat(Completions.failure(IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal(), 0, 10, 3))
                .isNotInstanceOf(RemoteAccessException.class)
                .hasMessageContaining("flushed");
        assertThat(Completions.failure(IbvWC.IbvWcStatus.IBV_WC_RETRY_EXC_ERR.ordinal(), 0, 11, 3))
                .hasMessageContaining("stopped answering");
        assertThat(Completions.failure(999, 0, 12, 3)).hasMessageContaining("unknown status 999");
    }
}
