package io.eve.mixer.conflict;

import io.eve.mixer.ParallelBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The parallel batches of one batch under construction, and a fast answer to "which is the first one at or
 * after slot {@code s} that still has room?". Full slots are skipped with a union-find style forwarding
 * array, compressed on every look-up, so a capped mixer stays near linear even when many slots fill up.
 *
 * <p>Confined to one {@code mix} call; not thread-safe.
 */
final class FirstFitSlots {
    private final int capacity;
    private final List<List<Integer>> members = new ArrayList<>();
    // nextOpen[s] == s while slot s has room; once full it points at a later candidate.
    private int[] nextOpen = new int[8];

    FirstFitSlots(int capacity) {
        this.capacity = capacity;
    }

    /** Puts {@code request} in the first slot with room at or after {@code floor}; returns that slot. */
    int place(int request, int floor) {
        int slot = firstOpenFrom(floor);
        if (slot == members.size()) {
            open(slot);
        }
        List<Integer> slotMembers = members.get(slot);
        slotMembers.add(request);
        if (slotMembers.size() == capacity) {
            nextOpen[slot] = slot + 1;
        }
        return slot;
    }

    List<ParallelBatch> toParallelBatches() {
        List<ParallelBatch> batches = new ArrayList<>(members.size());
        for (List<Integer> slotMembers : members) {
            batches.add(new ParallelBatch(slotMembers));
        }
        return List.copyOf(batches);
    }

    private int firstOpenFrom(int floor) {
        int open = floor;
        while (open < members.size() && nextOpen[open] != open) {
            open = nextOpen[open];
        }
        int slot = floor;
        while (slot < members.size() && nextOpen[slot] != slot) {
            int next = nextOpen[slot];
            nextOpen[slot] = open;
            slot = next;
        }
        return open;
    }

    private void open(int slot) {
        if (slot == nextOpen.length) {
            nextOpen = Arrays.copyOf(nextOpen, slot * 2);
        }
        nextOpen[slot] = slot;
        members.add(new ArrayList<>());
    }
}
