package io.eve.config;

import java.nio.file.Path;
import java.util.Properties;

/**
 * The {@code tls.*} part of a {@link ClusterConfig} (docs/operations.md, "Security"): whether every TCP
 * connection runs mutual TLS 1.3, and where this cluster's bundle is (written by {@code ./eve certs}).
 *
 * @param enabled {@code tls.enabled = on}: mutual TLS on every connection, replica to replica and client to
 *     replica (default off)
 * @param dir {@code tls.dir}: the bundle folder, relative to the configuration file's folder; node {@code i}
 *     reads {@code node-<i>/} in it (its key, its certificate, the CA's, and in bft its authenticator keys),
 *     a client {@code <tls.client>/}; null when unset
 * @param client {@code tls.client}: the folder in {@code dir} of this configuration's clients (default
 *     {@code client-0})
 * @param demo {@code tls.demo = on}: when {@code dir} is missing, a replica generates localhost demo material
 *     there at start, and every start with it logs that it is demo-only (default off)
 */
public record TlsSettings(boolean enabled, Path dir, String client, boolean demo) {
    /** Plain TCP. */
    public static final TlsSettings OFF = new TlsSettings(false, null, "client-0", false);

    static final String ENABLED = "tls.enabled";
    static final String DIR = "tls.dir";
    static final String CLIENT = "tls.client";
    static final String DEMO = "tls.demo";

    /** Checks the fields together. */
    public TlsSettings {
        if ((enabled || demo) && dir == null) {
            throw new ConfigException((enabled ? ENABLED + " = on" : DEMO + " = on") + " needs " + DIR
                    + ", the folder of the bundle written by ./eve certs --config <file> --out <dir>");
        }
        if (client == null || client.isBlank() || client.contains("/") || client.contains("\\")) {
            throw new ConfigException(CLIENT + " = '" + client + "' must name a folder inside " + DIR);
        }
    }

    /** Node {@code node}'s folder of the bundle. */
    public Path nodeFolder(int node) {
        return dir.resolve("node-" + node);
    }

    /** The clients' folder of the bundle. */
    public Path clientFolder() {
        return dir.resolve(client);
    }

    static TlsSettings parse(Properties properties, Path base) {
        String dir = properties.getProperty(DIR);
        Path folder = null;
        if (dir != null && !dir.isBlank()) {
            String expanded = dir.trim();
            if (expanded.equals("~") || expanded.startsWith("~/")) {
                expanded = System.getProperty("user.home") + expanded.substring(1);
            }
            folder = Path.of(expanded);
            if (!folder.isAbsolute() && base != null) {
                folder = base.resolve(folder);
            }
            folder = folder.normalize();
        }
        return new TlsSettings(
                ClusterConfig.onOff(properties, ENABLED, false),
                folder,
                properties.getProperty(CLIENT, "client-0").trim(),
                ClusterConfig.onOff(properties, DEMO, false));
    }
}
