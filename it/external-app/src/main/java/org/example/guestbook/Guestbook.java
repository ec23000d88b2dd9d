package org.example.guestbook;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.config.ClusterConfig;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.ConflictKeys;
import java.nio.charset.StandardCharsets;

/**
 * Signatures by name: {@code sign NAME TEXT} keeps the latest text a name signed and answers how many times
 * it signed; {@code read NAME} answers the text. Requests and replies are UTF-8, fields separated by tabs.
 * {@code app.greeting} (optional) is what an unsigned name reads.
 */
public final class Guestbook implements Application {
    private final ObjectGraphState state = ObjectGraphState.builder().build();
    private final String greeting;

    public Guestbook(ClusterConfig cluster) {
        this.greeting = cluster.app("greeting", "");
        state.setRoot("texts", new ReplicatedMap<String, String>());
        state.setRoot("counts", new ReplicatedMap<String, Long>());
    }

    @Override
    public ObjectGraphState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        String[] fields = fields(payload);
        return fields[0].equals("sign") ? ConflictKeys.writing(fields[1]) : ConflictKeys.reading(fields[1]);
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) {
        String[] fields = fields(payload);
        ReplicatedMap<String, String> texts = map("texts");
        ReplicatedMap<String, Long> counts = map("counts");
        String answer;
        if (fields[0].equals("sign")) {
            texts.put(fields[1], fields[2]);
            long count = counts.containsKey(fields[1]) ? counts.get(fields[1]) + 1 : 1;
            counts.put(fields[1], count);
            answer = Long.toString(count);
        } else {
            String text = texts.get(fields[1]);
            answer = text == null ? greeting : text;
        }
        return answer.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] sign(String name, String text) {
        return ("sign\t" + name + "\t" + text).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] read(String name) {
        return ("read\t" + name).getBytes(StandardCharsets.UTF_8);
    }

    private static String[] fields(byte[] payload) {
        String[] fields = new String(payload, StandardCharsets.UTF_8).split("\t", 3);
        boolean sign = fields[0].equals("sign") && fields.length == 3;
        boolean read = fields[0].equals("read") && fields.length == 2;
        if (!sign && !read) {
            throw new IllegalArgumentException("a guest book request is 'sign\\tNAME\\tTEXT' or 'read\\tNAME'");
        }
        return fields;
    }

    @SuppressWarnings("unchecked")
    private <V> ReplicatedMap<String, V> map(String name) {
        return state.root(name, ReplicatedMap.class);
    }
}
