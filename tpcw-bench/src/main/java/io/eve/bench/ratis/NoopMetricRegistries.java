package io.eve.bench.ratis;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.Timekeeper;
import org.apache.ratis.util.TimeDuration;

/**
 * Ratis' metric registries, doing nothing. Ratis finds its metrics implementation with a
 * {@link java.util.ServiceLoader} and otherwise loads {@code ratis-metrics-default}, which needs
 * Dropwizard metrics; the suite does not measure Ratis through its own metrics, so this keeps both off
 * the class path (and costs Ratis no metric updates, which flatters it slightly, if anything).
 *
 * <p>Registered in {@code META-INF/services/org.apache.ratis.metrics.MetricRegistries}. Thread-safe.
 */
public final class NoopMetricRegistries extends MetricRegistries {
    private final Map<MetricRegistryInfo, RatisMetricRegistry> registries = new ConcurrentHashMap<>();

    /** Called by the service loader. */
    public NoopMetricRegistries() {}

    @Override
    public void clear() {
        registries.clear();
    }

    @Override
    public RatisMetricRegistry create(MetricRegistryInfo info) {
        return registries.computeIfAbsent(info, NoopRegistry::new);
    }

    @Override
    public boolean remove(MetricRegistryInfo info) {
        return registries.remove(info) != null;
    }

    @Override
    public Optional<RatisMetricRegistry> get(MetricRegistryInfo info) {
        return Optional.ofNullable(registries.get(info));
    }

    @Override
    public Set<MetricRegistryInfo> getMetricRegistryInfos() {
        return Set.copyOf(registries.keySet());
    }

    @Override
    public Collection<RatisMetricRegistry> getMetricRegistries() {
        return List.copyOf(registries.values());
    }

    @Override
    public void addReporterRegistration(Consumer<RatisMetricRegistry> onAdd, Consumer<RatisMetricRegistry> onRemove) {}

    @Override
    public void enableJmxReporter() {}

    @Override
    public void enableConsoleReporter(TimeDuration period) {}

    /** A registry whose timers measure nothing and whose counters count (cheaply, for Ratis' own use). */
    private static final class NoopRegistry implements RatisMetricRegistry {
        private static final Timekeeper.Context STOPPED = () -> 0L;
        private static final Timekeeper TIMER = () -> STOPPED;

        private final MetricRegistryInfo info;

        NoopRegistry(MetricRegistryInfo info) {
            this.info = info;
        }

        @Override
        public Timekeeper timer(String name) {
            return TIMER;
        }

        @Override
        public LongCounter counter(String name) {
            AtomicLong count = new AtomicLong();
            return new LongCounter() {
                @Override
                public void inc(long n) {
                    count.addAndGet(n);
                }

                @Override
                public void dec(long n) {
                    count.addAndGet(-n);
                }

                @Override
                public long getCount() {
                    return count.get();
                }
            };
        }

        @Override
        public boolean remove(String name) {
            return false;
        }

        @Override
        public <T> void gauge(String name, Supplier<Supplier<T>> gaugeSupplier) {}

        @Override
        public MetricRegistryInfo getMetricRegistryInfo() {
            return info;
        }
    }
}
