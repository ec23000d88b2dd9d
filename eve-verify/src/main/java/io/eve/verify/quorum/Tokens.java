package io.eve.verify.quorum;

import io.eve.execution.Token;

/** Checks on tokens that arrive from other processes. */
final class Tokens {
    private Tokens() {}

    /** Whether the token's digest is the one its fields hash to: a token is never taken on trust. */
    static boolean wellFormed(Token token) {
        return Token.of(token.seq(), token.stateRoot(), token.replyDigest(), token.previous())
                .digest()
                .equals(token.digest());
    }

    /** Whether {@code chain} runs batch after batch, each token built on the one before. */
    static boolean isChain(java.util.List<Token> chain) {
        for (int i = 1; i < chain.size(); i++) {
            Token before = chain.get(i - 1);
            Token after = chain.get(i);
            if (after.seq() != before.seq() + 1 || !after.previous().equals(before.digest())) {
                return false;
            }
        }
        return true;
    }
}
