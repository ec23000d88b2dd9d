package io.eve.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The crash and bft profiles of {@link ClusterConfig}: roles, counts and the shipped files. */
class QuorumProfileConfigTest {

    private static ClusterConfig parse(String text) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(text));
        return ClusterConfig.parse(properties);
    }

    private static final String THREE = "nodes=0@h:1, 1@h:2, 2@h:3\n";
    private static final String FOUR = "nodes=0@h:1, 1@h:2, 2@h:3, 3@h:4\n";

    @Test
    void shouldDeriveTheRolesFromTheNodes() throws IOException {
        ClusterConfig crash = parse("profile=crash\n" + THREE);
        assertThat(crash.u()).isEqualTo(1);
        assertThat(crash.r()).isZero();
        assertThat(crash.executionReplicas()).containsExactly(0, 1, 2);
        assertThat(crash.verifiers()).containsExactly(0, 1, 2);
        assertThat(crash.matchingReplies()).isEqualTo(1);
        ClusterConfig bft = parse("profile=bft\n" + FOUR);
        assertThat(bft.r()).isEqualTo(1);
        assertThat(bft.executionReplicas()).containsExactly(0, 1, 2);
        assertThat(bft.verifiers()).containsExactly(0, 1, 2, 3);
        assertThat(bft.matchingReplies()).isEqualTo(2);
        assertThat(bft.clientTargets()).containsExactly(0, 1, 2);
        assertThat(bft.authKeysFile()).isNull();
    }

    @Test
    void shouldTakeListedRolesAndAKeysFile() throws IOException {
        ClusterConfig bft = parse("profile=bft\n" + FOUR
                + "quorum.execution-replicas=1,2,3\nquorum.verifiers=3,2,1,0\nauth.keys-file=keys.properties\n");
        assertThat(bft.executionReplicas()).containsExactly(1, 2, 3);
        assertThat(bft.authKeysFile()).isEqualTo("keys.properties");
    }

    @Test
    void shouldSignEvidenceInTheBftProfileUnlessTurnedOff() throws IOException {
        assertThat(parse("profile=bft\n" + FOUR).signedEvidence()).isTrue();
        assertThat(parse("profile=bft\n" + FOUR + "auth.signed-evidence=OFF\n").signedEvidence())
                .isFalse();
        assertThat(parse("profile=crash\n" + THREE).signedEvidence()).isFalse();
        assertThatThrownBy(() -> parse("profile=crash\n" + THREE + "auth.signed-evidence=on\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("auth.signed-evidence applies to the bft profile only, not to crash");
        assertThatThrownBy(() -> parse("profile=bft\n" + FOUR + "auth.signed-evidence=yes\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("auth.signed-evidence = 'yes' is neither on nor off");
    }

    @Test
    void shouldTurnTheExtraProtectionModeOnForTheCrashProfileOnly() throws IOException {
        assertThat(parse("profile=crash\n" + THREE).extraProtection())
                .isEqualTo(new ClusterConfig.ExtraProtection(
                        true, 32, java.time.Duration.ofMillis(10), java.time.Duration.ofSeconds(10)));
        assertThat(parse("profile=crash\n" + THREE
                                + "quorum.extra-protection=off\nquorum.extra-protection.after-batches=8\n"
                                + "quorum.extra-protection.wait-ms=25\nquorum.extra-protection.warm-up-ms=0\n")
                        .extraProtection())
                .isEqualTo(new ClusterConfig.ExtraProtection(
                        false, 8, java.time.Duration.ofMillis(25), java.time.Duration.ZERO));
        assertThatThrownBy(() -> parse("profile=crash\n" + THREE + "quorum.extra-protection.warm-up-ms=-1\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("quorum.extra-protection.warm-up-ms = -1 must be 0 or more");
        assertThat(parse("profile=bft\n" + FOUR).extraProtection().enabled()).isFalse();
        assertThat(parse("profile=primary-backup\nnodes=0@h:1, 1@h:2\n")
                        .extraProtection()
                        .enabled())
                .isFalse();
    }

    @Test
    void shouldRefuseTheExtraProtectionModeWhereItDoesNotApply() {
        assertThatThrownBy(() -> parse("profile=bft\n" + FOUR + "quorum.extra-protection=on\n"))
                .hasMessageContaining("quorum.extra-protection = on needs r = 0")
                .hasMessageContaining("got r = 1");
        assertThatThrownBy(() -> parse("profile=crash\n" + THREE + "quorum.extra-protection=yes\n"))
                .hasMessageContaining("quorum.extra-protection = 'yes' is neither on nor off");
        assertThatThrownBy(() -> parse("profile=crash\n" + THREE + "quorum.extra-protection.after-batches=0\n"))
                .hasMessageContaining("quorum.extra-protection.after-batches = 0 must be at least 1");
        assertThatThrownBy(() -> parse("profile=crash\n" + THREE + "quorum.extra-protection.wait-ms=0\n"))
                .hasMessageContaining("quorum.extra-protection.wait-ms = 0 must be positive");
        assertThatThrownBy(() -> parse("profile=primary-backup\nnodes=0@h:1, 1@h:2\nquorum.extra-protection=on\n"))
                .hasMessageContaining("applies to the crash profile only");
    }

    @Test
    void shouldNameTheFieldAndValueOfEveryMistake() {
        assertThatThrownBy(() -> parse("profile=crash\nnodes=0@h:1, 1@h:2\n"))
                .hasMessageContaining("quorum.execution-replicas = [0, 1]")
                .hasMessageContaining("u + max(u, r) + 1 = 3");
        assertThatThrownBy(() -> parse("profile=bft\n" + THREE))
                .hasMessageContaining("quorum.verifiers = [0, 1, 2]")
                .hasMessageContaining("2u + r + 1 = 4");
        assertThatThrownBy(() -> parse("profile=crash\n" + THREE + "quorum.r=1\n"))
                .hasMessageContaining("quorum.r = 1");
        assertThatThrownBy(() -> parse("profile=bft\n" + FOUR + "quorum.r=0\n")).hasMessageContaining("quorum.r = 0");
        assertThatThrownBy(() -> parse("profile=crash\n" + THREE + "quorum.u=0\n"))
                .hasMessageContaining("quorum.u = 0");
        assertThatThrownBy(() -> parse("profile=crash\n" + THREE + "quorum.verifiers=0,1,7\n"))
                .hasMessageContaining("node 7 is not in nodes");
        assertThatThrownBy(() -> parse("profile=crash\n" + THREE + "quorum.verifiers=0,1,x\n"))
                .hasMessageContaining("quorum.verifiers = '0,1,x'");
        assertThatThrownBy(() -> parse("profile=crash\n" + FOUR)).hasMessageContaining("node 3 hosts neither");
        assertThatThrownBy(() -> parse("profile=crash\n" + THREE + "auth.keys-file=k\n"))
                .hasMessageContaining("auth.keys-file");
        assertThatThrownBy(() -> parse("profile=primary-backup\nnodes=0@h:1, 1@h:2\nquorum.u=1\n"))
                .hasMessageContaining("quorum.u");
    }

    @Test
    void shouldLoadTheShippedProfiles() {
        ClusterConfig crash = ClusterConfig.load(Path.of("../config/crash.properties"));
        assertThat(crash.profile()).isEqualTo(ClusterConfig.Profile.CRASH);
        assertThat(crash.nodes()).extracting(NodeAddress::port).containsExactly(7200, 7201, 7202);
        ClusterConfig bft = ClusterConfig.load(Path.of("../config/bft.properties"));
        assertThat(bft.profile()).isEqualTo(ClusterConfig.Profile.BFT);
        assertThat(bft.nodes()).hasSize(4);
        ClusterConfig primaryBackup = ClusterConfig.load(Path.of("../config/primary-backup.properties"));
        assertThat(java.util.Set.of(crash.metricsPort(), bft.metricsPort(), primaryBackup.metricsPort()))
                .hasSize(3);
        assertThat(crash.metricsPort() - primaryBackup.metricsPort()).isGreaterThanOrEqualTo(2);
    }
}
