package io.eve.rdma.disni;

import com.ibm.disni.verbs.RdmaEventChannel;
import java.io.IOException;

/**
 * The probe's last check, called by name once every static check passed: opening an RDMA event channel
 * loads libdisni and reaches the device. This is the first place DiSNI's native initializer may run.
 */
public final class DisniDeepCheck {
    private DisniDeepCheck() {}

    /** {@code null} if an event channel opened and closed, else why not. */
    public static String run() {
        try {
            RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
            channel.destroyEventChannel();
            return null;
        } catch (IOException | LinkageError e) {
            return e.toString().trim();
        }
    }
}
