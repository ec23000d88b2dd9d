/** The README's main job: an in-process primary-backup cluster under load and faults. */
package io.eve.samples.cluster;
