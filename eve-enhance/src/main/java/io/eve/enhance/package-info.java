/**
 * The build step that tracks writes to replicated state: {@link io.eve.enhance.TrackWritesPlugin} rewrites
 * every write to a field of a {@code @Replicated} class, in every class of the build, so that it first
 * saves the object's pre-image for the batch in progress ({@code ObjectGraphState.modify}'s work).
 * {@link io.eve.enhance.Enhance} runs it over a folder of class files from Maven or Gradle. Names the
 * types of eve-merkle by their binary names only, so it has no dependency on it.
 */
package io.eve.enhance;
