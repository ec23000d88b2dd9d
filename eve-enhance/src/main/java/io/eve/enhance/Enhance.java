package io.eve.enhance;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.bytebuddy.build.Plugin;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;

/**
 * Runs {@link TrackWritesPlugin} over folders of compiled classes, in place. Called by the build after
 * compilation (Maven: {@code exec-maven-plugin}'s {@code java} goal in {@code process-classes}; Gradle: a
 * {@code JavaExec} task after {@code compileJava}; docs/state.md). Classes the folders reference are
 * looked up on the class path this runs with, which must be the module's compile (or test) class path.
 */
public final class Enhance {
    private static final String SKIP = "--skip=";

    private Enhance() {}

    /**
     * Enhances each folder given as an argument; a folder that does not exist is skipped (a module
     * without test classes). An argument {@code --skip=prefix} leaves the classes whose binary name
     * starts with {@code prefix} as compiled (for tests of manual tracking).
     *
     * @param args the class folders, e.g. {@code target/classes}, and any {@code --skip=} options
     * @throws IOException if a class file cannot be read or written
     * @throws IllegalStateException if a class cannot be transformed, naming it and why
     */
    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: Enhance <class folder>..., e.g. target/classes");
        }
        List<String> skipped = new ArrayList<>();
        List<File> folders = new ArrayList<>();
        for (String arg : args) {
            if (arg.startsWith(SKIP)) {
                if (arg.length() == SKIP.length()) {
                    throw new IllegalArgumentException(
                            "--skip= needs a class name prefix, e.g. --skip=com.example.manual.");
                }
                skipped.add(arg.substring(SKIP.length()));
            } else {
                folders.add(new File(arg));
            }
        }
        for (File folder : folders) {
            if (folder.isDirectory()) {
                enhance(folder, Thread.currentThread().getContextClassLoader(), new TrackWritesPlugin(skipped));
            } else if (folder.exists()) {
                throw new IllegalArgumentException(folder + " is not a folder of class files");
            }
        }
    }

    /** Enhances the classes in {@code folder}, resolving what they reference through {@code classPath}. */
    static Plugin.Engine.Summary enhance(File folder, ClassLoader classPath, TrackWritesPlugin plugin)
            throws IOException {
        Plugin.Engine.Summary summary;
        try {
            summary = new Plugin.Engine.Default()
                    .with(Plugin.Engine.TypeStrategy.Default.REDEFINE)
                    .with(ClassFileLocator.ForClassLoader.of(classPath))
                    .withErrorHandlers(
                            Plugin.Engine.ErrorHandler.Enforcing.ALL_TYPES_RESOLVED,
                            Plugin.Engine.ErrorHandler.Enforcing.NO_LIVE_INITIALIZERS,
                            Plugin.Engine.ErrorHandler.Failing.FAIL_LAST)
                    .apply(folder, folder, new Plugin.Factory.Simple(plugin));
        } catch (TypePool.Resolution.NoSuchTypeException e) {
            throw new IllegalStateException(
                    "could not enhance " + folder + ": " + e.getMessage() + "; run the step with the module's full"
                            + " compile class path (test class path for test classes)",
                    e);
        }
        Map<TypeDescription, List<Throwable>> failed = summary.getFailed();
        if (!failed.isEmpty()) {
            IllegalStateException error =
                    new IllegalStateException("could not enhance " + failed.keySet() + " in " + folder);
            failed.values().forEach(causes -> causes.forEach(error::addSuppressed));
            throw error;
        }
        return summary;
    }
}
