package io.eve.merkle.graph;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a field of a {@link Replicated} class as context, not state (a cache, a connection, a lock): it
 * is not hashed, not rolled back and not transferred. {@code transient} fields are excluded the same way.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface Exclude {}
