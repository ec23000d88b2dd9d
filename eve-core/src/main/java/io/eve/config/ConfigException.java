package io.eve.config;

import io.eve.EveException;

/** A configuration that cannot run; the message names the field, the value and what was expected. */
public final class ConfigException extends EveException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    public ConfigException(String message) {
        super(message);
    }
}
