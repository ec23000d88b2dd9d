package io.eve.server.launch;

import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads an application's class by name from a class path (jars and class folders) on top of the launcher's
 * own, and makes an instance: through a public constructor taking the {@link ClusterConfig} (to read its
 * {@code app.} settings) if there is one, else a public constructor without parameters. Every failure names
 * the class, what was expected and where it was looked for.
 */
public final class ApplicationLoader {
    private final ClassLoader loader;
    private final List<Path> classpath;

    private ApplicationLoader(ClassLoader loader, List<Path> classpath) {
        this.loader = loader;
        this.classpath = classpath;
    }

    /**
     * A loader over {@code classpath} entries, each a jar or a folder of classes; entries may also be lists
     * separated by the platform's path separator.
     */
    public static ApplicationLoader over(List<String> classpath) {
        List<Path> paths = new ArrayList<>();
        for (String entry : classpath) {
            for (String part : entry.split(File.pathSeparator)) {
                if (part.isBlank()) {
                    continue;
                }
                Path path = Path.of(part.trim());
                if (!Files.exists(path)) {
                    throw new ConfigException("--classpath entry " + path + " does not exist");
                }
                paths.add(path);
            }
        }
        URL[] urls = new URL[paths.size()];
        for (int i = 0; i < urls.length; i++) {
            try {
                urls[i] = paths.get(i).toUri().toURL();
            } catch (MalformedURLException e) {
                throw new ConfigException("--classpath entry " + paths.get(i) + " is not a usable path: " + e);
            }
        }
        ClassLoader parent = ApplicationLoader.class.getClassLoader();
        return new ApplicationLoader(urls.length == 0 ? parent : new URLClassLoader(urls, parent), List.copyOf(paths));
    }

    /** An instance of {@code className}, which must implement {@code type}. */
    public <T> T instance(String className, Class<T> type, ClusterConfig cluster) {
        Class<?> loaded;
        try {
            loaded = Class.forName(className, true, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new ConfigException("cannot load class " + className + " from the launcher's class path"
                    + (classpath.isEmpty() ? "" : " and --classpath " + classpath) + ": " + e);
        }
        if (!type.isAssignableFrom(loaded)) {
            throw new ConfigException(className + " does not implement " + type.getName());
        }
        Class<? extends T> implementation = loaded.asSubclass(type);
        try {
            Constructor<? extends T> withConfig = constructor(implementation, ClusterConfig.class);
            if (withConfig != null) {
                return withConfig.newInstance(cluster);
            }
            Constructor<? extends T> plain = constructor(implementation);
            if (plain != null) {
                return plain.newInstance();
            }
        } catch (InvocationTargetException e) {
            throw new ConfigException("the constructor of " + className + " threw " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new ConfigException("cannot make an instance of " + className + ": " + e);
        }
        throw new ConfigException(className + " needs a public constructor taking a " + ClusterConfig.class.getName()
                + " (for its app. settings) or taking nothing");
    }

    private static <T> Constructor<T> constructor(Class<T> type, Class<?>... parameters) {
        try {
            Constructor<T> constructor = type.getConstructor(parameters);
            return java.lang.reflect.Modifier.isPublic(type.getModifiers()) ? constructor : null;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
