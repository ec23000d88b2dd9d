package io.eve.bench.suite;

/**
 * What one mode did at one point of a sweep: its throughput, the CPU its servers spent, and the
 * end-of-point check. {@code speedup} (against the unreplicated sequential server with the same work and
 * object size in the same run) and {@code cpuRatio} (see {@link CpuAccounting}) are NaN where the run
 * has no baseline. Immutable.
 *
 * @param series the figure's line this point belongs to ({@code "Eve primary-backup, 1 ms"})
 * @param modeId the mode's id
 * @param modeLabel the mode's label
 * @param replicas execution replicas of the mode
 * @param workload the point's settings
 * @param x the point's position on the plot's horizontal axis
 * @param requests requests committed in the measured interval
 * @param seconds length of the measured interval
 * @param serverCpuNanos the servers' CPU in the interval (process CPU minus clients, JVM and suite)
 * @param serverThreadCpuNanos the sum over the server threads alone
 * @param clientCpuNanos the clients' CPU
 * @param check the end-of-point check
 * @param speedup throughput over the sequential baseline's
 * @param cpuRatio CPU per request over replicas times the unreplicated server's
 */
record PointResult(
        String series,
        String modeId,
        String modeLabel,
        int replicas,
        Workload workload,
        double x,
        long requests,
        double seconds,
        long serverCpuNanos,
        long serverThreadCpuNanos,
        long clientCpuNanos,
        Mode.Check check,
        double speedup,
        double cpuRatio) {

    double requestsPerSecond() {
        return requests / seconds;
    }

    double cpuMicrosPerRequest() {
        return CpuAccounting.microsPerRequest(serverCpuNanos, requests);
    }

    PointResult withBaselines(double speedup, double cpuRatio) {
        return new PointResult(
                series,
                modeId,
                modeLabel,
                replicas,
                workload,
                x,
                requests,
                seconds,
                serverCpuNanos,
                serverThreadCpuNanos,
                clientCpuNanos,
                check,
                speedup,
                cpuRatio);
    }
}
