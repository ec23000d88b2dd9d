package io.eve.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command line's handling of usage mistakes and bad configuration, without starting anything. */
class EveKvTest {
    private final StringWriter errors = new StringWriter();

    private int run(String... args) {
        CommandLine commandLine = EveKv.commandLine();
        commandLine.setErr(new PrintWriter(errors, true));
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        return commandLine.execute(args);
    }

    @Test
    void shouldExitWithTwoAndNameTheMissingOption() {
        assertThat(run("replica", "--node", "0")).isEqualTo(2);
        assertThat(errors.toString()).contains("--config");
    }

    @Test
    void shouldRejectAnUnknownCommand() {
        assertThat(run("serve")).isEqualTo(2);
        assertThat(errors.toString()).contains("serve");
    }

    @Test
    void shouldNameTheFieldAndValueOfABadConfiguration(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("bad.properties");
        Files.writeString(config, "profile=primary-backup\nnodes=0@127.0.0.1:1\nexecutor.threads=0\n");
        assertThat(run("replica", "--config", config.toString(), "--node", "0")).isNotZero();
        assertThat(errors.toString()).contains("exactly 2");
    }

    @Test
    void shouldSayWhichFileCannotBeRead(@TempDir Path dir) {
        assertThat(run("client", "--config", dir.resolve("missing.properties").toString(), "get", "1"))
                .isNotZero();
        assertThat(errors.toString()).startsWith("error: ").contains("missing.properties");
    }

    @Test
    void shouldRefuseABftReplicaWithoutKeysAndNameTheSetting(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("bft.properties");
        Files.writeString(
                config,
                "profile=bft\nnodes=0@127.0.0.1:1, 1@127.0.0.1:2, 2@127.0.0.1:3, 3@127.0.0.1:4\nmetrics.port=0\n");
        assertThat(run("replica", "--config", config.toString(), "--node", "0")).isNotZero();
        assertThat(errors.toString()).contains("auth.keys-file").contains("./eve keys");
    }

    @Test
    void shouldWriteOneKeyFilePerNodeTheReplicasAccept(@TempDir Path dir) throws Exception {
        Path keys = dir.resolve("keys");
        assertThat(run("keys", "--config", "../config/bft.properties", "--out", keys.toString()))
                .isZero();
        int[] ids = {0, 1, 2, 3};
        for (int node : ids) {
            Path file = keys.resolve("node-" + node).resolve(io.eve.verify.auth.MacKeys.NODE_FILE);
            assertThat(io.eve.verify.auth.MacKeys.loadNode(file, ids, node).holder())
                    .isEqualTo(node);
        }
        assertThat(run("keys", "--config", "../config/bft.properties", "--out", keys.toString()))
                .as("never overwrites a key file")
                .isNotZero();
    }

    @Test
    void shouldWriteABundleOfCertificatesEveryNodeAndClientLoads(@TempDir Path dir) throws Exception {
        Path bundle = dir.resolve("bundle");
        assertThat(run("certs", "--config", "../config/bft.properties", "--out", bundle.toString(), "--clients", "2"))
                .isZero();
        int[] ids = {0, 1, 2, 3};
        for (int node : ids) {
            assertThat(io.eve.transport.netty.tls.TlsIdentity.loadNode(bundle.resolve("node-" + node), node)
                            .identity()
                            .node())
                    .isEqualTo(node);
            Path macs = bundle.resolve("node-" + node).resolve(io.eve.verify.auth.MacKeys.NODE_FILE);
            assertThat(io.eve.verify.auth.MacKeys.loadNode(macs, ids, node).holder())
                    .isEqualTo(node);
        }
        assertThat(io.eve.transport.netty.tls.TlsIdentity.loadClient(bundle.resolve("client-1"))
                        .identity()
                        .isNode())
                .isFalse();
        assertThat(run("certs", "--config", "../config/bft.properties", "--out", bundle.toString()))
                .as("never writes into a bundle that exists")
                .isNotZero();
        assertThat(errors.toString()).contains("is not empty");
    }

    @Test
    void shouldRefuseTransportRdmaOnAMachineWithoutItListingEveryFailedCheck(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("rdma.properties");
        Files.writeString(
                config,
                "profile=primary-backup\nnodes=0@127.0.0.1:1, 1@127.0.0.1:2\nmetrics.port=0\n"
                        + "transport=rdma\nrdma.nodes=0@127.0.0.1:7500, 1@127.0.0.1:7502\n");
        org.junit.jupiter.api.Assumptions.assumeFalse(
                io.eve.rdma.RdmaProbe.ofThisMachine(0).probe().available(), "this machine has RDMA");

        assertThat(run("replica", "--config", config.toString(), "--node", "0")).isNotZero();
        assertThat(errors.toString()).contains("RDMA").contains("libdisni");
    }
}
