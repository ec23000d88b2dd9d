package io.eve.tpcw.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws throughput against execution threads, one line per mode, like Eve Fig. 3 (JFreeChart, headless,
 * decision 0011). The sequential baseline is measured once and drawn flat across the thread counts.
 */
public final class ThroughputChart {
    private ThroughputChart() {}

    /** Writes the chart of {@code results} as a PNG. */
    public static void write(List<ModeResult> results, String title, Path png) throws IOException {
        XYSeries sequential = new XYSeries("unreplicated, sequential");
        XYSeries unreplicated = new XYSeries("unreplicated, parallel");
        XYSeries eve = new XYSeries("Eve primary-backup");
        XYSeries crash = new XYSeries("Eve crash profile");
        double baseline = results.stream()
                .filter(r -> r.mode().equals("sequential"))
                .mapToDouble(ModeResult::throughput)
                .findFirst()
                .orElse(0);
        for (ModeResult r : results) {
            if (r.mode().equals("unreplicated")) {
                unreplicated.add(r.threads(), r.throughput());
                sequential.add(r.threads(), baseline);
            } else if (r.mode().equals("eve")) {
                eve.add(r.threads(), r.throughput());
            } else if (r.mode().equals("eve-crash")) {
                crash.add(r.threads(), r.throughput());
            }
        }
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(eve);
        data.addSeries(crash);
        data.addSeries(unreplicated);
        data.addSeries(sequential);
        JFreeChart chart = ChartFactory.createXYLineChart(
                title,
                "execution threads",
                "interactions per second",
                data,
                PlotOrientation.VERTICAL,
                true,
                false,
                false);
        chart.getXYPlot()
                .getDomainAxis()
                .setStandardTickUnits(org.jfree.chart.axis.NumberAxis.createIntegerTickUnits());
        chart.getXYPlot().setBackgroundPaint(java.awt.Color.WHITE);
        chart.getXYPlot().setRangeGridlinePaint(java.awt.Color.GRAY);
        chart.getXYPlot().setDomainGridlinePaint(java.awt.Color.GRAY);
        if (chart.getXYPlot().getRenderer() instanceof org.jfree.chart.renderer.xy.XYLineAndShapeRenderer lines) {
            lines.setDefaultShapesVisible(true);
        }
        Path parent = png.toAbsolutePath().getParent();
        if (parent != null) {
            java.nio.file.Files.createDirectories(parent);
        }
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 800, 500);
    }
}
