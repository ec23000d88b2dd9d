package io.eve.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class MailboxTest {
    private final ExecutorService home = Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "home"));
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopHome() {
        home.shutdownNow();
    }

    private Mailbox newMailbox(int drainLimit) {
        return new Mailbox(home, drainLimit, failures::add);
    }

    @Test
    void shouldRunOnTheCallingThreadWhenIdle() {
        Mailbox mailbox = newMailbox(16);
        AtomicReference<Thread> ranOn = new AtomicReference<>();

        mailbox.run(() -> ranOn.set(Thread.currentThread()));

        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(mailbox.idle()).isTrue();
    }

    @Test
    void shouldNeverRunAPostedTaskOnTheCaller() throws InterruptedException {
        Mailbox mailbox = newMailbox(16);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);

        mailbox.post(() -> {
            ranOn.set(Thread.currentThread());
            done.countDown();
        });

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ranOn.get().getName()).isEqualTo("home");
    }

    @Test
    void shouldRunATaskSubmittedFromInsideATaskAfterIt() {
        Mailbox mailbox = newMailbox(16);
        List<String> order = new ArrayList<>();

        mailbox.run(() -> {
            mailbox.run(() -> order.add("inner"));
            order.add("outer");
        });

        assertThat(order).containsExactly("outer", "inner");
    }

    @Test
    void shouldHandTheRestToItsThreadAfterTheDrainLimit() throws InterruptedException {
        Mailbox mailbox = newMailbox(2);
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(1);

        mailbox.run(() -> {
            for (int i = 0; i < 3; i++) {
                mailbox.run(() -> threads.add(Thread.currentThread().getName()));
            }
            mailbox.run(done::countDown);
            threads.add(Thread.currentThread().getName());
        });

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        String caller = Thread.currentThread().getName();
        assertThat(threads).containsExactly(caller, caller, "home", "home");
    }

    @Test
    void shouldKeepEachSubmittersOrderAndRunOneTaskAtATime() throws InterruptedException {
        Mailbox mailbox = newMailbox(8);
        int submitters = 4;
        int perSubmitter = 20_000;
        int[] lastSeen = new int[submitters];
        AtomicInteger running = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < submitters; s++) {
            int submitter = s;
            threads.add(new Thread(() -> {
                for (int i = 1; i <= perSubmitter; i++) {
                    int value = i;
                    Runnable task = () -> {
                        if (running.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        // Plain fields are safe here only because tasks never overlap.
                        if (lastSeen[submitter] != value - 1) {
                            outOfOrder.incrementAndGet();
                        }
                        lastSeen[submitter] = value;
                        ran.incrementAndGet();
                        running.decrementAndGet();
                    };
                    if (value % 3 == 0) {
                        mailbox.post(task);
                    } else {
                        mailbox.run(task);
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        CountDownLatch drained = new CountDownLatch(1);
        mailbox.post(drained::countDown);
        assertThat(drained.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(ran.get()).isEqualTo(submitters * perSubmitter);
        assertThat(overlaps.get()).isZero();
        assertThat(outOfOrder.get()).isZero();
    }

    @Test
    void shouldReportAFailingTaskAndGoOn() {
        Mailbox mailbox = newMailbox(16);
        List<String> ran = new ArrayList<>();

        mailbox.run(() -> {
            mailbox.run(() -> {
                throw new IllegalStateException("boom");
            });
            mailbox.run(() -> ran.add("after"));
        });

        assertThat(failures).singleElement().satisfies(f -> assertThat(f).hasMessage("boom"));
        assertThat(ran).containsExactly("after");
    }

    @Test
    void shouldDropWhatIsSubmittedAfterClose() {
        Mailbox mailbox = newMailbox(16);
        List<String> ran = new ArrayList<>();

        mailbox.run(() -> {
            mailbox.run(() -> ran.add("queued before close"));
            mailbox.close();
        });
        mailbox.run(() -> ran.add("after close"));

        assertThat(ran).isEmpty();
    }

    @Test
    void shouldAnswerAQueryAfterTheTasksBeforeItAndReportItsFailure() throws Exception {
        Mailbox mailbox = newMailbox(16);
        List<String> state = new ArrayList<>();
        mailbox.post(() -> state.add("written"));

        assertThat(mailbox.ask(() -> List.copyOf(state), java.time.Duration.ofSeconds(10)))
                .containsExactly("written");
        assertThatThrownBy(() -> mailbox.ask(
                        () -> {
                            throw new IllegalStateException("no answer");
                        },
                        java.time.Duration.ofSeconds(10)))
                .isInstanceOf(java.util.concurrent.ExecutionException.class)
                .hasRootCauseMessage("no answer");
    }
}
