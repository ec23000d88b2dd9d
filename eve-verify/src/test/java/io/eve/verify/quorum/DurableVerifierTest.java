package io.eve.verify.quorum;

import static io.eve.verify.quorum.VerifierTest.MS;
import static io.eve.verify.quorum.VerifierTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
import io.eve.protocol.Message.ViewChange;
import io.eve.storage.CorruptStorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A verifier that remembers its view and best certificate (docs/quorum.md, "Durable verifiers"). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DurableVerifierTest {
    private static final QuorumConfig CRASH = QuorumConfig.crash(new int[] {0, 1, 2}, 0);

    @TempDir
    Path dir;

    private final List<Message> sent = new ArrayList<>();

    /** A memory whose saves become durable only when the test says so. */
    static final class Disk implements VerifierMemory {
        VerifierMemory.Remembered durable;
        final List<VerifierMemory.Remembered> saves = new ArrayList<>();

        @Override
        public VerifierMemory.Remembered load() {
            return durable;
        }

        @Override
        public void save(VerifierMemory.Remembered record, long version) {
            saves.add(record);
        }

        /** The last save reaches the disk; returns its version. */
        long flush() {
            durable = saves.get(saves.size() - 1);
            return saves.size();
        }
    }

    private Verifier verifier(Disk disk) {
        Verifier verifier = new Verifier(CRASH, (to, m) -> sent.add(m), Evidence.PLAIN, false, 0, disk);
        verifier.start(0);
        return verifier;
    }

    private List<Message> sentOf(Class<? extends Message> type) {
        return sent.stream().filter(type::isInstance).toList();
    }

    @Test
    void shouldHoldEveryMessageUntilTheRecordItDependsOnIsDurable() {
        Disk disk = new Disk();
        Verifier verifier = verifier(disk);
        Token first = token(1, 1, null);
        verifier.onMessage(1, new Verify(0, first), MS);
        verifier.onMessage(2, new Verify(0, first), MS);
        assertThat(sent).as("the Prepare waits for the first record (view 0)").isEmpty();
        assertThat(disk.saves).hasSize(1);
        verifier.onDurable(disk.flush());
        assertThat(sentOf(Prepare.class)).hasSize(2);

        // Prepared: the certificate must be durable before the CommitVote leaves.
        verifier.onMessage(1, new Prepare(0, 1, first), MS);
        assertThat(sentOf(CommitVote.class)).isEmpty();
        assertThat(disk.saves).hasSize(2);
        assertThat(disk.saves.get(1).best().token()).isEqualTo(first);
        assertThat(disk.saves.get(1).best().view()).isZero();
        verifier.onMessage(1, new CommitVote(0, 1, first), MS);
        assertThat(disk.saves)
                .as("no record for the commit: the best certificate is of the same batch")
                .hasSize(2);
        assertThat(verifier.heldMessages()).isEqualTo(2 + 3);
        verifier.onDurable(disk.flush());
        assertThat(verifier.heldMessages()).isZero();
        assertThat(sentOf(CommitVote.class)).hasSize(2);
        assertThat(sentOf(VerifyResponse.class)).hasSize(3);
        int index = sent.indexOf(sentOf(CommitVote.class).get(0));
        assertThat(sent.indexOf(sentOf(VerifyResponse.class).get(0)))
                .as("order kept")
                .isGreaterThan(index);
    }

    /**
     * docs/quorum.md, "Rejoining", rule F: a verifier restarted from its memory asks to rejoin; one peer answers
     * from its view, another does not, so it cannot adopt and after a view timeout changes view reporting its
     * memory. The peer that answered counted that view change only with a certificate of a later view, which
     * does not exist before the new view starts (pipelined agreement, {@code bft-restart-all} seed 28 on the
     * branch that introduced it: the view changes never completed). Now the restarted verifier says it adopted
     * nothing, and from then on the peer counts its view changes.
     */
    @Test
    void shouldCountTheViewChangeOfAVerifierRestartedFromItsMemoryOnceItSaysItAdoptedNothing() {
        Token first = token(1, 1, null);
        Certificate remembered = new Certificate(0, first, List.of(new Prepare(0, 1, first), new Prepare(0, 2, first)));
        Disk disk = new Disk();
        disk.durable = new VerifierMemory.Remembered(0, remembered);
        List<Message> fromRestarted = new ArrayList<>();
        Verifier restarted = new Verifier(
                QuorumConfig.crash(new int[] {0, 1, 2}, 1),
                (to, m) -> {
                    if (to == 0) {
                        fromRestarted.add(m);
                    }
                },
                Evidence.PLAIN,
                false,
                7,
                disk);
        List<Message> fromPeer = new ArrayList<>();
        Verifier peer = new Verifier(
                QuorumConfig.crash(new int[] {0, 1, 2}, 0), (to, m) -> fromPeer.add(m), Evidence.PLAIN, false);
        peer.start(0);
        restarted.start(0);
        assertThat(disk.saves).as("its JoinQuery needs no new record").isEmpty();
        for (Message query : List.copyOf(fromRestarted)) {
            peer.onMessage(1, query, MS); // the JoinQuery; verifier 2 never answers
        }
        assertThat(fromPeer).anyMatch(m -> m instanceof Message.JoinState);
        fromRestarted.clear();

        restarted.onTick(600 * MS); // a view timeout later: no rejoin, so a view change from its memory
        restarted.onDurable(disk.flush());
        ViewChange change = (ViewChange) fromRestarted.stream()
                .filter(ViewChange.class::isInstance)
                .findFirst()
                .orElseThrow();
        assertThat(change.certificateView()).isZero();
        assertThat(fromRestarted).anyMatch(m -> m instanceof Message.JoinState);
        long ignored = peer.ignored();
        peer.onMessage(1, change, 601 * MS);
        assertThat(peer.ignored())
                .as("before the announcement: rule F refuses it")
                .isEqualTo(ignored + 1);
        assertThat(peer.changingView()).isFalse();

        for (Message message : fromRestarted) {
            peer.onMessage(1, message, 602 * MS);
        }
        assertThat(peer.changingView())
                .as("after it: the view change counts, and the peer follows it")
                .isTrue();
    }

    @Test
    void shouldRestartFromItsMemoryWithAViewChangeThatReportsTheRememberedCertificate() {
        Disk disk = new Disk();
        Verifier before = verifier(disk);
        Token first = token(1, 1, null);
        before.onMessage(1, new Verify(0, first), MS);
        before.onMessage(2, new Verify(0, first), MS);
        before.onMessage(1, new Prepare(0, 1, first), MS);
        before.onDurable(disk.flush());
        assertThat(sentOf(CommitVote.class)).hasSize(2);

        sent.clear();
        Verifier after = verifier(disk);
        assertThat(after.recovering()).isTrue();
        assertThat(sentOf(Message.JoinQuery.class))
                .as("it first tries to rejoin")
                .hasSize(2);
        after.onTick(CRASH.viewTimeoutNanos() + MS);
        assertThat(sentOf(ViewChange.class))
                .as("held until the view it leaves for is remembered")
                .isEmpty();
        assertThat(disk.saves.get(disk.saves.size() - 1).view()).isEqualTo(1);
        after.onDurable(disk.flush());
        List<Message> changes = sentOf(ViewChange.class);
        assertThat(changes).hasSize(2);
        ViewChange change = (ViewChange) changes.get(0);
        assertThat(change.newView()).isEqualTo(1);
        assertThat(change.certificateView()).as("a certificate that counts").isZero();
        assertThat(change.certificate()).isEqualTo(first);
        assertThat(change.evidence()).hasSize(CRASH.agreementQuorum());
        assertThat(after.recovering()).isFalse();
        assertThat(disk.durable.view())
                .as("the view it left for, remembered before the view change left")
                .isEqualTo(1);
    }

    @Test
    void shouldKeepTheRecordInAFileAndRefuseADamagedOne() throws Exception {
        Token first = token(1, 1, null);
        Certificate certificate =
                new Certificate(0, first, List.of(new Prepare(0, 0, first), new Prepare(0, 1, first)));
        Path file;
        try (VerifierStore store = VerifierStore.open(dir, 0)) {
            assertThat(store.recovered()).isFalse();
            long[] durable = {0};
            VerifierMemory memory = store.memory("verifier 0", () -> version -> {
                synchronized (durable) {
                    durable[0] = version;
                    durable.notifyAll();
                }
            });
            memory.save(new VerifierMemory.Remembered(3, certificate), 1);
            synchronized (durable) {
                while (durable[0] < 1) {
                    durable.wait(1000);
                }
            }
            file = store.file();
        }
        try (VerifierStore reopened = VerifierStore.open(dir, 0)) {
            assertThat(reopened.recovered()).isTrue();
            assertThat(reopened.recoveredView()).isEqualTo(3);
            VerifierMemory.Remembered read =
                    reopened.memory("verifier 0", () -> v -> {}).load();
            assertThat(read.best()).isEqualTo(certificate);
        }
        assertThatThrownBy(() -> VerifierStore.open(dir, 1))
                .hasMessageContaining(file.toString())
                .hasMessageContaining("not the memory of verifier 1");
        byte[] bytes = Files.readAllBytes(file);
        bytes[10] ^= 0x01; // the header's size field: its checksum fails
        Files.write(file, bytes);
        assertThatThrownBy(() -> VerifierStore.open(dir, 0))
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(file.toString());
    }
}
