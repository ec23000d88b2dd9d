package org.example.guestbook;

import io.eve.Reply;
import io.eve.client.ClientProgram;
import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The guest book's command line for the launcher: {@code sign NAME TEXT} or {@code read NAME}. */
public final class GuestbookClient implements ClientProgram {
    @Override
    public int run(EveClient client, ClusterConfig cluster, List<String> args) {
        byte[] request =
                args.get(0).equals("sign") ? Guestbook.sign(args.get(1), args.get(2)) : Guestbook.read(args.get(1));
        Reply reply = client.call(request);
        System.out.println(
                (reply.error() ? "error: " + reply.errorText() : new String(reply.payload(), StandardCharsets.UTF_8)));
        return reply.error() ? 1 : 0;
    }
}
