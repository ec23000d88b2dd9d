package io.eve.bench.deployed;

import java.util.Map;

/**
 * One system measured once as separate processes. Immutable.
 *
 * @param run which run of the sequence (1-based)
 * @param system {@code unreplicated}, {@code primary-backup}, {@code crash}, {@code bft}, {@code ratis-grpc} or
 *     {@code ratis-netty} (Eve's with the suffixes of {@code --systems}, and {@code -durable})
 * @param requestsPerSecond requests committed per second in the measured window
 * @param requests requests committed in the window
 * @param seconds the window's length
 * @param errors requests that failed or got an error reply in the window
 * @param p50Micros median latency
 * @param p99Micros 99th percentile
 * @param p999Micros 99.9th percentile
 * @param cpuMicrosPerRequest CPU per committed request of each process ({@code node-0}.., {@code load}), from
 *     {@code /proc/<pid>/stat} over the window
 * @param driverCpuMicrosPerRequest CPU per request of the load JVM's driver threads alone
 * @param viewChanges views the Eve replicas moved through during the window (-1 for Ratis: not read)
 * @param viewAtEnd the highest view any replica reports at the end (view changes since start-up)
 * @param rollbacks rollbacks summed over the replicas during the window (-1 for Ratis)
 * @param check the end-of-run audit (equal roots) or what was not checked
 * @param loadAverage the machine's one-minute load average at the end of the window
 * @param ratioToRatis requests/s over the best Ratis point of the same run (NaN without one)
 * @param ratioToUnreplicated requests/s over the unreplicated point of the same run (NaN without one)
 */
public record DeployedPoint(
        int run,
        String system,
        double requestsPerSecond,
        long requests,
        double seconds,
        long errors,
        double p50Micros,
        double p99Micros,
        double p999Micros,
        Map<String, Double> cpuMicrosPerRequest,
        double driverCpuMicrosPerRequest,
        long viewChanges,
        long viewAtEnd,
        long rollbacks,
        String check,
        double loadAverage,
        double ratioToRatis,
        double ratioToUnreplicated) {

    /** Whether the system is a Ratis variant. */
    public boolean ratis() {
        return system.startsWith("ratis-");
    }

    /** Whether the system is the unreplicated baseline. */
    public boolean unreplicated() {
        return system.equals(DeployedBenchmark.UNREPLICATED);
    }

    /** Whether the system is one of Eve's profiles (views and rollbacks were read). */
    public boolean eve() {
        return DeployedBenchmark.isEveProfile(system);
    }

    /** This point with {@code toRatis} and {@code toUnreplicated} as its ratios. */
    public DeployedPoint withRatios(double toRatis, double toUnreplicated) {
        return new DeployedPoint(
                run,
                system,
                requestsPerSecond,
                requests,
                seconds,
                errors,
                p50Micros,
                p99Micros,
                p999Micros,
                cpuMicrosPerRequest,
                driverCpuMicrosPerRequest,
                viewChanges,
                viewAtEnd,
                rollbacks,
                check,
                loadAverage,
                toRatis,
                toUnreplicated);
    }

    /** CPU microseconds per request of {@code cpuNanos} spread over {@code requests} (NaN for none). */
    public static double microsPerRequest(long cpuNanos, long requests) {
        return requests <= 0 || cpuNanos < 0 ? Double.NaN : cpuNanos / 1e3 / requests;
    }
}
