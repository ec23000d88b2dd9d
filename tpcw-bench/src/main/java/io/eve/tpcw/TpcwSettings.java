package io.eve.tpcw;

import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import io.eve.tpcw.schema.Scale;
import java.util.List;
import java.util.Locale;

/**
 * What every replica of a TPC-W cluster must agree on to start from the same database, read from the
 * cluster configuration's {@code app.} settings (docs/tpcw.md, "As processes"): the scale, the mixer's
 * cart partitions and the seed of the generated rows. Immutable.
 *
 * @param scale items, emulated browsers the population is for, and the fraction of the spec's customers
 * @param cartPartitions how many ways the mixer splits the cart tables
 * @param seed the seed of the generated rows
 */
public record TpcwSettings(Scale scale, int cartPartitions, long seed) {
    /** The defaults: 1,000 items, 20 browsers' worth of customers at a tenth of the spec, 10 partitions. */
    public static final TpcwSettings DEFAULT = new TpcwSettings(new Scale(1000, 20, 0.1), 10, 42);

    public TpcwSettings {
        if (cartPartitions < 1) {
            throw new ConfigException("app.cart-partitions must be at least 1, got " + cartPartitions);
        }
    }

    /** The settings in {@code cluster}'s {@code app.} keys, each missing one taken from {@link #DEFAULT}. */
    public static TpcwSettings from(ClusterConfig cluster) {
        String customerScale = cluster.app("customer-scale", Double.toString(DEFAULT.scale.customerScale()));
        try {
            Scale scale = new Scale(
                    Math.toIntExact(cluster.app("items", DEFAULT.scale.items())),
                    Math.toIntExact(cluster.app("ebs", DEFAULT.scale.ebs())),
                    Double.parseDouble(customerScale));
            return new TpcwSettings(
                    scale,
                    Math.toIntExact(cluster.app("cart-partitions", DEFAULT.cartPartitions)),
                    cluster.app("seed", DEFAULT.seed));
        } catch (NumberFormatException e) {
            throw new ConfigException("app.customer-scale = '" + customerScale + "' is not a number");
        } catch (IllegalArgumentException e) {
            throw new ConfigException("the TPC-W app. settings are out of range: " + e.getMessage());
        }
    }

    /** These settings as the {@code app.} lines of a cluster configuration. */
    public List<String> configLines() {
        return List.of(
                "app.items=" + scale.items(),
                "app.ebs=" + scale.ebs(),
                "app.customer-scale=" + String.format(Locale.ROOT, "%s", scale.customerScale()),
                "app.cart-partitions=" + cartPartitions,
                "app.seed=" + seed);
    }
}
