/**
 * A guest book written the way a user of Eve writes a service: outside the project's packages, against the
 * published API only ({@code io.eve:eve-server}). Its tests deploy it through the builder and the launcher.
 */
package org.example.guestbook;
