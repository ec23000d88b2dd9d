package io.eve.server.launch;

/**
 * JVM-wide settings that a replica or client process started by our launchers takes unless its operator chose
 * otherwise on the command line (decision 0050). They are read when Netty's classes load, so
 * {@link #apply()} runs first thing in {@code main}.
 *
 * <p>Netty's leak detector (level SIMPLE by default) records the stack of one buffer in 128 it allocates, to
 * report a buffer collected without being released. In a replica at saturation that was 2.7 to 3.6 % of its
 * CPU (docs/benchmarks.md, "Netty's leak detector sampled less often"). Our processes sample one buffer in
 * {@value #LEAK_SAMPLING_INTERVAL}: a leak on a path taken thousands of times a second is still reported within
 * seconds, at a thirty-second of the cost. A level or interval given with {@code -Dio.netty.leakDetection...}
 * wins.
 */
public final class ProcessDefaults {
    static final String LEAK_LEVEL = "io.netty.leakDetection.level";
    static final String LEAK_SAMPLING = "io.netty.leakDetection.samplingInterval";
    static final int LEAK_SAMPLING_INTERVAL = 4096;

    private ProcessDefaults() {}

    /** Sets what the operator left unset; call before anything touches Netty. */
    public static void apply() {
        if (System.getProperty(LEAK_LEVEL) == null && System.getProperty(LEAK_SAMPLING) == null) {
            System.setProperty(LEAK_SAMPLING, Integer.toString(LEAK_SAMPLING_INTERVAL));
        }
    }
}
