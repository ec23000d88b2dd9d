package io.eve.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.transport.SocketIo;
import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ClusterConfigTest {

    private static ClusterConfig parse(String text) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(text));
        return ClusterConfig.parse(properties);
    }

    private static final String VALID = "profile=primary-backup\nnodes=0@127.0.0.1:7100, 1@127.0.0.1:7101\n";

    @Test
    void shouldReadAValidConfigurationWithDefaults() throws IOException {
        ClusterConfig config = parse(VALID + "executor.threads=8\nfailure.timeout-ms=500\n");
        assertThat(config.nodes()).extracting(NodeAddress::port).containsExactly(7100, 7101);
        assertThat(config.node(1).host()).isEqualTo("127.0.0.1");
        assertThat(config.executorThreads()).isEqualTo(8);
        assertThat(config.failureTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.maxBatchSize()).isEqualTo(64);
        assertThat(config.inlineBatchLimit()).isEqualTo(1);
        assertThat(config.overlapBatches()).isTrue();
    }

    @Test
    void shouldLeaveAppKeysToTheApplicationAndStillRefuseUnknownOnes() throws IOException {
        ClusterConfig config = parse(VALID + "app.accounts = 1000\napp.bank.name=Tutorial\n");
        assertThat(config.app()).containsOnlyKeys("accounts", "bank.name");
        assertThat(config.app("accounts", 5L)).isEqualTo(1000L);
        assertThat(config.app("bank.name", "")).isEqualTo("Tutorial");
        assertThat(config.app("missing", 7L)).isEqualTo(7L);
        assertThatThrownBy(() -> parse(VALID + "app.accounts=many\n").app("accounts", 0L))
                .hasMessageContaining("app.accounts = 'many'");
        assertThatThrownBy(() -> parse(VALID + "apps.accounts=1\n")).hasMessageContaining("'apps.accounts'");
        assertThatThrownBy(() -> parse(VALID + "app.=1\n")).hasMessageContaining("'app.'");
    }

    @Test
    void shouldOverlapBatchesByDefaultInEveryProfile() throws IOException {
        assertThat(parse(VALID + "execution.overlap=on\n").overlapBatches()).isTrue();
        assertThat(parse(VALID + "execution.overlap = OFF\n").overlapBatches()).isFalse();
        assertThatThrownBy(() -> parse(VALID + "execution.overlap=yes\n"))
                .hasMessageContaining("execution.overlap = 'yes'");
        assertThat(parse("profile=crash\nnodes=0@h:1,1@h:2,2@h:3\nexecution.overlap=on\n")
                        .overlapBatches())
                .isTrue();
        assertThat(parse("profile=crash\nnodes=0@h:1,1@h:2,2@h:3\nexecution.overlap=off\n")
                        .overlapBatches())
                .as("the quorum profiles run without overlap when asked to")
                .isFalse();
        assertThat(parse("profile=crash\nnodes=0@h:1,1@h:2,2@h:3\n").overlapBatches())
                .as("decision 0046")
                .isTrue();
    }

    @Test
    void shouldPipelineAgreementOnlyWhenAskedAndOnlyInTheQuorumProfiles() throws IOException {
        String crash = "profile=crash\nnodes=0@h:1,1@h:2,2@h:3\n";
        assertThat(parse(crash).pipelinedAgreement()).isFalse();
        assertThat(parse(crash + "agreement.pipelined=on\n").pipelinedAgreement())
                .isTrue();
        assertThatThrownBy(() -> parse(crash + "agreement.pipelined=maybe\n"))
                .hasMessageContaining("agreement.pipelined = 'maybe'");
        assertThatThrownBy(() -> parse(VALID + "agreement.pipelined=on\n"))
                .hasMessageContaining("crash and bft profiles only");
    }

    @Test
    void shouldReadTheQuorumWindowsAndRefuseOnesThatCannotWork() throws IOException {
        String crash = "profile=crash\nnodes=0@h:1,1@h:2,2@h:3\n";
        assertThat(parse(crash).bounds()).isEqualTo(ClusterConfig.Bounds.DEFAULT);
        assertThat(parse(crash + "quorum.window.batches=100\nquorum.window.views=9\nquorum.held-messages=5\n")
                        .bounds())
                .isEqualTo(new ClusterConfig.Bounds(100, 9, 5));
        assertThatThrownBy(() -> parse(crash + "pipeline.depth=8\nquorum.window.batches=8\n"))
                .hasMessageContaining("quorum.window.batches = 8 must exceed pipeline.depth = 8");
        assertThatThrownBy(() -> parse(crash + "quorum.window.views=0\n")).hasMessageContaining("quorum.window.views");
        assertThatThrownBy(() -> parse(VALID + "quorum.held-messages=10\n"))
                .hasMessageContaining("quorum.held-messages applies to the crash and bft profiles only");
    }

    @Test
    void shouldReadTheStorageKeysWithTheirDefaults() throws IOException {
        ClusterConfig none = parse(VALID);
        assertThat(none.storage().enabled()).isFalse();
        assertThat(none.storage().sync()).isEqualTo(ClusterConfig.Storage.Sync.BATCH);

        ClusterConfig batch = parse(VALID + "storage.dir=/var/lib/eve\n");
        assertThat(batch.storage().nodeDir(1)).isEqualTo(java.nio.file.Path.of("/var/lib/eve", "node-1"));
        assertThat(batch.storage().sync()).isEqualTo(ClusterConfig.Storage.Sync.BATCH);
        assertThat(batch.storage().checkpointEvery()).isEqualTo(1000);

        ClusterConfig interval = parse(
                VALID
                        + "storage.dir=data\nstorage.sync = Interval\nstorage.sync-interval-ms=25\nstorage.checkpoint-every=50\n");
        assertThat(interval.storage().sync()).isEqualTo(ClusterConfig.Storage.Sync.INTERVAL);
        assertThat(interval.storage().syncInterval()).isEqualTo(Duration.ofMillis(25));
        assertThat(interval.storage().checkpointEvery()).isEqualTo(50);
        assertThat(parse(VALID + "storage.dir=data\nstorage.sync=none\n")
                        .storage()
                        .sync())
                .isEqualTo(ClusterConfig.Storage.Sync.NONE);
    }

    @Test
    void shouldRefuseMalformedStorageKeysNamingThem() {
        String dir = VALID + "storage.dir=data\n";
        assertThatThrownBy(() -> parse(dir + "storage.sync=always\n"))
                .hasMessageContaining("storage.sync = 'always'")
                .hasMessageContaining("batch, interval, none");
        assertThatThrownBy(() -> parse(dir + "storage.sync=interval\nstorage.sync-interval-ms=0\n"))
                .hasMessageContaining("storage.sync-interval-ms = 0");
        assertThatThrownBy(() -> parse(dir + "storage.sync=interval\nstorage.sync-interval-ms=10ms\n"))
                .hasMessageContaining("storage.sync-interval-ms = '10ms'");
        assertThatThrownBy(() -> parse(dir + "storage.sync-interval-ms=5\n"))
                .hasMessageContaining("storage.sync-interval-ms applies to storage.sync = interval only");
        assertThatThrownBy(() -> parse(dir + "storage.checkpoint-every=0\n"))
                .hasMessageContaining("storage.checkpoint-every = 0");
        assertThatThrownBy(() -> parse(dir + "storage.checkpoint-every=often\n"))
                .hasMessageContaining("storage.checkpoint-every = 'often'");
        assertThatThrownBy(() -> parse(VALID + "storage.dir= \n")).hasMessageContaining("storage.dir is empty");
        assertThatThrownBy(() -> parse(VALID + "storage.sync=none\n"))
                .hasMessageContaining("storage.sync is set but storage.dir is not");
        assertThatThrownBy(() -> parse(dir + "storage.directory=x\n")).hasMessageContaining("'storage.directory'");
    }

    @Test
    void shouldNameTheFieldAndValueOfEveryMistake() {
        assertThatThrownBy(() -> parse("nodes=0@h:1,1@h:2\n")).hasMessageContaining("'profile'");
        assertThatThrownBy(() -> parse(VALID + "execution.inline-batch-limit=-1\n"))
                .hasMessageContaining("execution.inline-batch-limit = -1");
        assertThatThrownBy(() -> parse("profile=paxos\nnodes=0@h:1,1@h:2\n")).hasMessageContaining("profile = 'paxos'");
        assertThatThrownBy(() -> parse("profile=primary-backup\nnodes=0@h:1\n")).hasMessageContaining("exactly 2");
        assertThatThrownBy(() -> parse("profile=primary-backup\nnodes=0@h:1,1@h\n"))
                .hasMessageContaining("'1@h'")
                .hasMessageContaining("id@host:port");
        assertThatThrownBy(() -> parse("profile=primary-backup\nnodes=0@h:1,1@h:70000\n"))
                .hasMessageContaining("port 70000");
        assertThatThrownBy(() -> parse("profile=primary-backup\nnodes=0@h:1,0@h:2\n"))
                .hasMessageContaining("id 0 appears twice");
        assertThatThrownBy(() -> parse(VALID + "executor.threads=zero\n"))
                .hasMessageContaining("executor.threads = 'zero'");
        assertThatThrownBy(() -> parse(VALID + "executor.threads=0\n")).hasMessageContaining("executor.threads = 0");
        assertThatThrownBy(() -> parse(VALID + "failure.timeout-ms=50\n"))
                .hasMessageContaining("failure.timeout-ms = 50");
        assertThatThrownBy(() -> parse(VALID + "batch.maxsize=3\n"))
                .hasMessageContaining("unknown setting 'batch.maxsize'");
    }

    @Test
    void shouldLoadTheShippedProfile() {
        ClusterConfig config = ClusterConfig.load(java.nio.file.Path.of("../config/primary-backup.properties"));
        assertThat(config.profile()).isEqualTo(ClusterConfig.Profile.PRIMARY_BACKUP);
        assertThat(config.nodes()).hasSize(2);
        assertThat(config.metricsPort()).isEqualTo(9100);
    }

    @Test
    void shouldReadAPrimaryBackupWitness() throws IOException {
        ClusterConfig config =
                parse("profile=primary-backup\nnodes=0@h:1,1@h:2,2@h:3\nwitness=2\nstorage.dir=/var/eve\n");
        assertThat(config.witness()).hasValue(2);
        assertThat(config.isWitness(2)).isTrue();
        assertThat(config.isWitness(0)).isFalse();
        assertThat(config.clientTargets()).containsExactly(0, 1);
        assertThat(config.replicaNodes()).extracting(NodeAddress::id).containsExactly(0, 1);
        assertThat(config.storageDir()).contains(java.nio.file.Path.of("/var/eve"));
        assertThat(parse(VALID).witness()).isEmpty();
        assertThat(parse(VALID).storageDir()).isEmpty();
    }

    @Test
    void shouldRefuseAWitnessThatDoesNotFit() {
        assertThatThrownBy(() -> parse("profile=crash\nnodes=0@h:1,1@h:2,2@h:3\nwitness=2\n"))
                .hasMessageContaining("witness = 2 applies to the primary-backup profile only, not to crash");
        assertThatThrownBy(() -> parse("profile=primary-backup\nnodes=0@h:1,1@h:2,2@h:3\nwitness=1,2\n"))
                .hasMessageContaining("witness = '1,2' is not one node id")
                .hasMessageContaining("at most one witness");
        assertThatThrownBy(() -> parse("profile=primary-backup\nnodes=0@h:1,1@h:2,2@h:3\nwitness=5\n"))
                .hasMessageContaining("witness = 5 is not one of the nodes");
        assertThatThrownBy(() -> parse("profile=primary-backup\nnodes=0@h:1,1@h:2\nwitness=1\n"))
                .hasMessageContaining("with a witness needs exactly 3");
        assertThatThrownBy(() -> parse("profile=primary-backup\nnodes=0@h:1,1@h:2,2@h:3\n"))
                .hasMessageContaining("witness = <id>");
        assertThatThrownBy(() -> parse(VALID + "storage.dir= \n")).hasMessageContaining("storage.dir is empty");
    }

    @Test
    void shouldLoadTheShippedWitnessProfile() {
        ClusterConfig config = ClusterConfig.load(java.nio.file.Path.of("../config/primary-backup-witness.properties"));
        assertThat(config.witness()).hasValue(2);
        assertThat(config.clientTargets()).containsExactly(0, 1);
    }

    @Test
    void shouldReadTheTransportChoiceAndRequireRdmaAddressesForIt() throws IOException {
        assertThat(parse(VALID).transport()).isEqualTo("netty");
        ClusterConfig rdma = parse(VALID + "transport=auto\nrdma.nodes=0@10.0.0.1:7500, 1@10.0.0.2:7500\n");
        assertThat(rdma.transport()).isEqualTo("auto");
        assertThat(rdma.rdmaNode(1).host()).isEqualTo("10.0.0.2");
        assertThatThrownBy(() -> parse(VALID + "transport=infiniband\n"))
                .hasMessageContaining("transport = 'infiniband'");
        assertThatThrownBy(() -> parse(VALID + "transport=rdma\nrdma.nodes=0@10.0.0.1:7500\n"))
                .hasMessageContaining("rdma.nodes")
                .hasMessageContaining("[0, 1]");
        assertThatThrownBy(() -> parse(VALID + "rdma.nodes=0@10.0.0.1:7500, 1@10.0.0.2:7500\n"))
                .hasMessageContaining("transport = netty");
        assertThatThrownBy(() -> parse(VALID + "transport=rdma\nrdma.nodes=0@h, 1@h:1\n"))
                .hasMessageContaining("rdma.nodes entry '0@h'");
    }

    @Test
    void shouldReadTheSocketLayerAndRefuseAnUnknownOne() throws IOException {
        assertThat(parse(VALID).socketIo()).isEqualTo(SocketIo.AUTO);
        assertThat(parse(VALID + "transport.io = NIO\n").socketIo()).isEqualTo(SocketIo.NIO);
        assertThat(parse(VALID + "transport.io=epoll\n").socketIo()).isEqualTo(SocketIo.EPOLL);
        assertThatThrownBy(() -> parse(VALID + "transport.io=io_uring\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("transport.io = 'io_uring' is not one of auto, epoll, nio");
    }
}
