package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.security.MessageDigest;
import org.junit.jupiter.api.Test;

/**
 * Known-answer vectors: the digest format of docs/state-format.md recomputed here from first principles
 * with a plain {@link MessageDigest}, plus pinned hex values so any change to the format fails loudly.
 */
class DigestFormatTest {
    private static final String PINNED_ROOT = "ef1ea0c5d706f259821a5f6a7d3aef1b2c0245d4dc6e150969a1af61c19bdc21";

    private static ObjectGraphState fixedState() {
        ObjectGraphState state = ObjectGraphState.builder()
                .manualTracking(true)
                .register(Account.class, Bank.class)
                .build();
        Bank bank = new Bank(1);
        Account alice = new Account("alice", 100);
        alice.memo = new byte[] {1, 2, 3};
        alice.kind = Account.Kind.SAVINGS;
        alice.rate = 0.5;
        alice.version = 7;
        alice.frozen = true;
        bank.accounts[0] = alice;
        bank.counters[2] = 9;
        bank.totalDeposits = 100;
        state.setRoot("bank", bank);
        state.seal(0);
        return state;
    }

    private static byte[] sha256(byte[] input) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(input);
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        out.writeInt(s.length());
        out.writeChars(s);
    }

    private static byte[] aliceLeaf() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(0x00);
        string(out, "test.Account");
        out.writeLong(100); // balance
        out.writeBoolean(true); // frozen
        out.writeBoolean(true); // kind present
        string(out, "SAVINGS");
        out.writeBoolean(true); // memo present
        out.writeInt(3);
        out.write(new byte[] {1, 2, 3});
        out.writeLong(0); // next: null
        out.writeBoolean(true); // owner present
        string(out, "alice");
        out.writeLong(Double.doubleToLongBits(0.5)); // rate
        out.writeInt(7); // version
        return sha256(bytes.toByteArray());
    }

    private static byte[] bankLeaf() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(0x00);
        string(out, "test.Bank");
        out.writeBoolean(true); // accounts present
        out.writeInt(1);
        out.writeLong(2); // alice has id 2
        out.writeBoolean(true); // counters present
        out.writeInt(4);
        for (long c : new long[] {0, 0, 9, 0}) {
            out.writeLong(c);
        }
        out.writeLong(100); // totalDeposits
        return sha256(bytes.toByteArray());
    }

    private static byte[] rootsTable() throws Exception {
        ByteArrayOutputStream free = new ByteArrayOutputStream();
        DataOutputStream freeOut = new DataOutputStream(free);
        freeOut.writeByte(0x05);
        freeOut.writeInt(0);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(0x03);
        out.writeInt(1);
        string(out, "bank");
        out.writeLong(1); // the bank has id 1
        out.writeLong(3); // next id
        out.writeInt(0); // free-list cursor
        out.write(sha256(free.toByteArray()));
        return sha256(bytes.toByteArray());
    }

    private static byte[] expectedRoot() throws Exception {
        ByteArrayOutputStream node = new ByteArrayOutputStream();
        node.write(0x01);
        node.write(rootsTable());
        node.write(bankLeaf());
        node.write(aliceLeaf());
        node.write(new byte[13 * 32]);
        ByteArrayOutputStream root = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(root);
        out.writeByte(0x02);
        out.writeInt(1); // height
        out.write(sha256(node.toByteArray()));
        return sha256(root.toByteArray());
    }

    @Test
    void shouldHashLeavesAsDocumented() throws Exception {
        ObjectGraphState state = fixedState();
        assertThat(state.tree().slotDigest(2)).isEqualTo(Digest.of(aliceLeaf()));
        assertThat(state.tree().slotDigest(1)).isEqualTo(Digest.of(bankLeaf()));
        assertThat(state.tree().slotDigest(0)).isEqualTo(Digest.of(rootsTable()));
    }

    @Test
    void shouldHashTheTreeAsDocumented() throws Exception {
        assertThat(fixedState().rootAt(0)).isEqualTo(Digest.of(expectedRoot()));
    }

    @Test
    void shouldKeepThePinnedRoot() {
        assertThat(fixedState().rootAt(0).toHex()).isEqualTo(PINNED_ROOT);
    }
}
