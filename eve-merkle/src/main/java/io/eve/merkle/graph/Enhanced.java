package io.eve.merkle.graph;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Written by the eve-enhance build step, never by hand: the class went through it, so every write to a
 * replicated field in it saves the object's pre-image first ({@link Tracking}). Registration refuses a
 * state class (or a superclass below {@link StateObject}) without it unless the state was built with
 * {@code manualTracking(true)}. See docs/state.md, "Tracked writes".
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Enhanced {}
