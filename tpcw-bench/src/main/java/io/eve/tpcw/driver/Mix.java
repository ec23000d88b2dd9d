package io.eve.tpcw.driver;

import io.eve.tpcw.interaction.Interaction;
import java.util.SplittableRandom;

/**
 * The three TPC-W workload mixes (spec clause 5.2.2): the share of each interaction, in percent, in
 * {@link Interaction} order. Browsing is 95 % browse interactions, shopping 80 %, ordering 50 %.
 */
public enum Mix {
    BROWSING(29.00, 11.00, 11.00, 21.00, 12.00, 11.00, 2.00, 0.82, 0.75, 0.69, 0.30, 0.25, 0.10, 0.09),
    SHOPPING(16.00, 5.00, 5.00, 17.00, 20.00, 17.00, 11.60, 3.00, 2.60, 1.20, 0.75, 0.66, 0.10, 0.09),
    ORDERING(9.12, 0.46, 0.46, 12.35, 14.53, 13.08, 13.53, 12.86, 12.73, 10.18, 0.25, 0.22, 0.12, 0.11);

    private final double[] percent;
    private final double[] cumulative;

    Mix(double... percent) {
        this.percent = percent.clone();
        this.cumulative = new double[percent.length];
        double sum = 0;
        for (int i = 0; i < percent.length; i++) {
            sum += percent[i];
            cumulative[i] = sum;
        }
    }

    /** The share of {@code interaction} in percent. */
    public double percent(Interaction interaction) {
        return percent[interaction.ordinal()];
    }

    /** Draws an interaction with this mix's probabilities. */
    public Interaction draw(SplittableRandom random) {
        double point = random.nextDouble() * cumulative[cumulative.length - 1];
        for (int i = 0; i < cumulative.length; i++) {
            if (point < cumulative[i]) {
                return Interaction.values()[i];
            }
        }
        return Interaction.values()[cumulative.length - 1];
    }
}
