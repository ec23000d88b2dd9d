/** Immutable, validated cluster configuration read from profile files (DESIGN.md section 11). */
package io.eve.config;
