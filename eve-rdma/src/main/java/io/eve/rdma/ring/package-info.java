/**
 * The data plane of the RDMA transport (DESIGN.md section 10, after APUS and Mu): in every receiver's
 * registered region one ring per sender, entries written by the sender with one-sided writes and polled by
 * the receiver, which validates them (sequence, length, CRC32C, trailing canary), delivers, zeroes the
 * space and writes its consumed position back into the sender's region as credit. Layout and reasons in
 * docs/rdma.md and docs/decisions/0009-rdma-ring-protocol.md.
 */
package io.eve.rdma.ring;
