/** JMH microbenchmarks of the pipeline's parts: the mixer, the wire codec, tokens. */
package io.eve.bench.pipeline;
