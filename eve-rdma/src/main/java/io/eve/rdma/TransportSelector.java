package io.eve.rdma;

import io.eve.transport.Transport;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the transport a node asked for (DESIGN.md section 10): {@code netty} as is; {@code rdma} only if
 * the {@link RdmaProbe} passes, else {@link RdmaUnavailableException} listing every failed check; {@code
 * auto} RDMA if the probe passes, else Netty after reporting every reason (a WARN log by default). DiSNI
 * classes are loaded by name, and only once the probe has passed.
 *
 * <p>Immutable and thread-safe.
 */
public final class TransportSelector {
    private static final Logger LOG = LoggerFactory.getLogger(TransportSelector.class);
    private static final String DISNI_FABRIC = "io.eve.rdma.disni.DisniFabric";

    private final RdmaProbe probe;
    private final Consumer<RdmaProbe.Result> onFallback;

    public TransportSelector(RdmaProbe probe) {
        this(
                probe,
                result ->
                        LOG.warn("transport = auto: RDMA is unavailable, using Netty:\n{}", result.describeFailures()));
    }

    /** With {@code onFallback} told (instead of the log) why {@code auto} chose Netty. */
    public TransportSelector(RdmaProbe probe, Consumer<RdmaProbe.Result> onFallback) {
        this.probe = Objects.requireNonNull(probe, "probe");
        this.onFallback = Objects.requireNonNull(onFallback, "onFallback");
    }

    /**
     * The transport for {@code mode}.
     *
     * @param netty builds the Netty transport
     * @param rdma builds the RDMA transport over the fabric it is given (DiSNI, opened on {@code rdmaAddress})
     * @param rdmaAddress the IPv4 address and port of this node's RDMA NIC for DiSNI's connection manager
     * @throws RdmaUnavailableException for {@code rdma} on a machine that fails the probe
     */
    public Transport select(
            TransportMode mode,
            Supplier<Transport> netty,
            Function<OneSidedFabric, Transport> rdma,
            int self,
            InetSocketAddress rdmaAddress) {
        if (mode == TransportMode.NETTY) {
            return netty.get();
        }
        RdmaProbe.Result result = probe.probe();
        if (result.available()) {
            return rdma.apply(newDisniFabric(self, rdmaAddress));
        }
        if (mode == TransportMode.RDMA) {
            throw new RdmaUnavailableException(result);
        }
        onFallback.accept(result);
        return netty.get();
    }

    /** DiSNI's fabric, loaded by name so that nothing of DiSNI loads before the probe passed. */
    static OneSidedFabric newDisniFabric(int self, InetSocketAddress rdmaAddress) {
        try {
            return (OneSidedFabric) Class.forName(DISNI_FABRIC)
                    .getConstructor(int.class, InetSocketAddress.class)
                    .newInstance(self, rdmaAddress);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw new FabricException("DiSNI failed to start on " + rdmaAddress + ": " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new FabricException("cannot load " + DISNI_FABRIC + ": " + e, e);
        }
    }
}
