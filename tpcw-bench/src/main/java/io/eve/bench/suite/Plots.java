package io.eve.bench.suite;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * PNG plots of a run with JFreeChart (decision 0012): one line per series against threads or conflict
 * probability, or bars per mode for the peer comparison. Needs no display ({@code java.awt.headless}).
 * Stateless.
 */
final class Plots {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;

    private Plots() {}

    /** Writes this figure's plots into {@code directory}; returns the files written. */
    static List<Path> write(Figure figure, List<PointResult> results, Path directory, String name) throws IOException {
        System.setProperty("java.awt.headless", "true");
        switch (figure) {
            case CONFLICT:
                return List.of(
                        lines(
                                results,
                                r -> !r.series().startsWith("false positives"),
                                directory.resolve(name + "-fn.png"),
                                "Eve primary-backup against conflict probability, with mixer false negatives (Eve Fig. 6)"),
                        lines(
                                results,
                                r -> !r.series().startsWith("false negatives"),
                                directory.resolve(name + "-fp.png"),
                                "Eve primary-backup against conflict probability, with mixer false positives (Eve Fig. 7)"));
            case PEER:
                return List.of(bars(results, directory.resolve(name + ".png")));
            default:
                return List.of(lines(
                        results,
                        r -> true,
                        directory.resolve(name + ".png"),
                        "Throughput speedup over the unreplicated sequential server (Eve Figs. 4 and 5)"));
        }
    }

    private static Path lines(List<PointResult> results, Predicate<PointResult> include, Path file, String title)
            throws IOException {
        boolean conflict = results.stream()
                .anyMatch(
                        r -> r.workload().objects() != results.get(0).workload().objects());
        Map<String, XYSeries> series = new LinkedHashMap<>();
        for (PointResult r : results) {
            if (include.test(r)
                    && !Double.isNaN(r.speedup())
                    && (conflict || !r.modeId().equals(Modes.UNREPLICATED_SEQUENTIAL))) {
                series.computeIfAbsent(r.series(), XYSeries::new).add(r.x(), r.speedup());
            }
        }
        XYSeriesCollection data = new XYSeriesCollection();
        series.values().forEach(data::addSeries);
        String xLabel = conflict ? "pairwise conflict probability (%)" : "execution threads";
        JFreeChart chart = ChartFactory.createXYLineChart(
                title,
                xLabel,
                "speedup over 1 unreplicated thread",
                data,
                PlotOrientation.VERTICAL,
                true,
                false,
                false);
        XYPlot plot = chart.getXYPlot();
        if (conflict) {
            plot.setDomainAxis(new LogAxis(xLabel));
        }
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            renderer.setSeriesStroke(i, new BasicStroke(2f));
        }
        plot.setRenderer(renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
        return file;
    }

    private static Path bars(List<PointResult> results, Path file) throws IOException {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        ToDoubleFunction<PointResult> rate = PointResult::requestsPerSecond;
        for (PointResult r : results) {
            data.addValue(rate.applyAsDouble(r), "requests/s", r.series());
        }
        JFreeChart chart = ChartFactory.createBarChart(
                "Zero-work key-value requests: Eve primary-backup beside Apache Ratis",
                "mode",
                "requests/s",
                data,
                PlotOrientation.HORIZONTAL,
                false,
                false,
                false);
        chart.getCategoryPlot().setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
        return file;
    }
}
