package io.eve.storage;

import io.eve.EveException;

/** Storage could not be read or written (an I/O error, a full disk, a directory that cannot be created). */
public class StorageException extends EveException {
    private static final long serialVersionUID = 1L;

    public StorageException(String message) {
        super(message);
    }

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
