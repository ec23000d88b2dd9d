package io.eve.merkle.graph;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class whose instances are replicated state. The class extends {@link StateObject}, is
 * top-level or static nested, is not a record, and has a no-argument constructor (any visibility) so a
 * replica that receives it by state transfer can create instances.
 *
 * <p>Every instance field that is neither {@code static}, {@code transient} nor {@link Exclude}d is
 * state and must have a supported type (see {@link ObjectGraphState}); the class is rejected at
 * registration otherwise, and also when the eve-enhance build step did not process it (it carries
 * {@link Enhanced}) unless the state uses manual tracking.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Replicated {
    /**
     * The stable name hashed into every instance's digest and used by state transfer to find the class.
     * Defaults to the binary class name; set it to keep digests stable across a rename or a move.
     */
    String name() default "";
}
