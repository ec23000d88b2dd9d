package io.eve.bench.harness;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;

/**
 * The benchmarks' JSON (Jackson databind): records and maps as objects, indented with {@code "key": value},
 * and a NaN or infinite
 * double as {@code null} (JSON has no NaN; a point without a baseline has no ratio). Stateless.
 */
public final class Json {
    private static final ObjectMapper MAPPER = create();

    private Json() {}

    /** The shared mapper; thread-safe once configured, so do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** {@code value} as indented JSON, with a trailing newline. */
    public static String render(Object value) {
        try {
            return MAPPER.writeValueAsString(value) + "\n";
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot write " + value.getClass().getName() + " as JSON: " + e, e);
        }
    }

    private static ObjectMapper create() {
        SimpleModule nanAsNull = new SimpleModule("nan-as-null");
        JsonSerializer<Double> doubles = new JsonSerializer<>() {
            @Override
            public void serialize(Double value, JsonGenerator out, SerializerProvider provider) throws IOException {
                if (value.isNaN() || value.isInfinite()) {
                    out.writeNull();
                } else {
                    out.writeNumber(value);
                }
            }
        };
        nanAsNull.addSerializer(Double.class, doubles);
        nanAsNull.addSerializer(double.class, doubles);
        // "key": value, as the hand-written reports had it (Jackson's default is "key" : value), so greps on
        // the reports keep working.
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter()
                .withSeparators(
                        Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER));
        return new ObjectMapper()
                .registerModule(nanAsNull)
                .enable(SerializationFeature.INDENT_OUTPUT)
                .setDefaultPrettyPrinter(printer);
    }
}
