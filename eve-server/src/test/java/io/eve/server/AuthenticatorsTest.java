package io.eve.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.config.ClusterConfig;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.MacKeys;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which links carry authenticator tags (docs/quorum.md, "Tags or TLS"; decision 0048). */
class AuthenticatorsTest {
    private static final String RDMA_NODES =
            "rdma.nodes=0@127.0.0.1:7500, 1@127.0.0.1:7502, 2@127.0.0.1:7504, 3@127.0.0.1:7506\n";

    @Test
    void shouldSendNoTagsOnlyOverTlsOnTcpWithSignedEvidence(@TempDir Path dir) throws IOException {
        MacKeys.generate(new int[] {0, 1, 2, 3}, new SecureRandom()).writeNodeFiles(dir.resolve("keys"));
        assertThat(envelopes(dir, "tls.enabled=on\ntls.dir=bundle\n").tagged())
                .as("mutual TLS on TCP proves the sender")
                .isFalse();
        assertThat(envelopes(dir, "").tagged()).as("plain TCP").isTrue();
        assertThat(envelopes(dir, "tls.enabled=on\ntls.dir=bundle\ntransport=rdma\n" + RDMA_NODES)
                        .tagged())
                .as("RDMA: a ring entry's sender is not proven by TLS")
                .isTrue();
        assertThat(envelopes(dir, "tls.enabled=on\ntls.dir=bundle\ntransport=auto\n" + RDMA_NODES)
                        .tagged())
                .as("auto may run on RDMA")
                .isTrue();
        Envelopes macEvidence = envelopes(dir, "tls.enabled=on\ntls.dir=bundle\nauth.signed-evidence=off\n");
        assertThat(macEvidence.tagged()).as("MAC evidence is the envelopes").isTrue();
        assertThat(macEvidence.signsEvidence()).isFalse();
    }

    private static Envelopes envelopes(Path dir, String extra) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(
                "profile=bft\nnodes=0@127.0.0.1:7400, 1@127.0.0.1:7401, 2@127.0.0.1:7402, 3@127.0.0.1:7403\n"
                        + "auth.keys-file=keys/node-{node}/macs.properties\n" + extra));
        return Authenticators.envelopes(ClusterConfig.parse(properties), dir, 2);
    }
}
