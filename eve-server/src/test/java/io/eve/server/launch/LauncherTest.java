package io.eve.server.launch;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Replica;
import io.eve.ReplicaClosedException;
import io.eve.ReplicaStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class LauncherTest {

    /** A replica whose status answers come from a script: a status, a busy node, then closed. */
    private static final class Scripted implements Replica {
        final Deque<Supplier<ReplicaStatus>> answers = new ArrayDeque<>();

        @Override
        public void start() {}

        @Override
        public int node() {
            return 2;
        }

        @Override
        public ReplicaStatus status() {
            return answers.removeFirst().get();
        }

        @Override
        public ReplicaStatus awaitRole(Role role, Duration timeout) {
            throw new UnsupportedOperationException("not used by the launcher's loop");
        }

        @Override
        public void close() {}
    }

    /**
     * Found in issue 21's deployed benchmark: under load a replica's protocol thread did not answer a status
     * read within its 5 s, the exception left the loop, and the replica process exited. A late status is now
     * a line, and only a closed replica ends the loop.
     */
    @Test
    void shouldKeepARunningReplicaWhoseStatusIsLateAndStopOnlyWhenItIsClosed() throws Exception {
        Scripted replica = new Scripted();
        ReplicaStatus status = new ReplicaStatus(
                2, Replica.Role.BACKUP, "execution", 3, 40, 40, null, -1, 1, 0, 0, 77, 3, 0, "", true);
        replica.answers.add(() -> status);
        replica.answers.add(() -> {
            throw new IllegalStateException("node 2 did not answer within PT5S");
        });
        replica.answers.add(() -> status);
        replica.answers.add(() -> {
            throw new ReplicaClosedException("node 2 is closed");
        });
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = Launcher.reportUntilClosed(replica, 1, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(exit).isEqualTo(1);
        assertThat(out.lines())
                .containsExactly(
                        "node 2: backup (execution), view 3, committed 40, rollbacks 1, transfers 0, replies 77",
                        "node 2: no status this time: node 2 did not answer within PT5S",
                        "node 2: backup (execution), view 3, committed 40, rollbacks 1, transfers 0, replies 77",
                        "node 2: stopped: node 2 is closed");
    }
}
