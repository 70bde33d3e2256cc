package uhp.sandbox;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.neo4j.graphdb.Entity;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Path;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.spatial.Point;
import org.neo4j.values.storable.DurationValue;

/** Values in and out: JSON params become Cypher's types; results leave as plain JSON, no internal ids. */
final class Values {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.nnnnnnnnn");
    private static final DateTimeFormatter OFFSET = DateTimeFormatter.ofPattern("xxx");

    private Values() {}

    /** JSON numbers as Cypher's INTEGER (long) and FLOAT (double), whatever width Jackson chose. */
    static Object param(Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(String.valueOf(k), param(v)));
            return out;
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(v -> out.add(param(v)));
            return out;
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof java.math.BigInteger big) {
            return big.longValueExact();
        }
        if (value instanceof Float || value instanceof java.math.BigDecimal) {
            return ((Number) value).doubleValue();
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> params(Object value) {
        return value == null ? Map.of() : (Map<String, Object>) param(value);
    }

    /** `plain` with no bound (the warm-up and tests of the shape). */
    static Object plain(Object value) {
        return plain(value, new Budget(Long.MAX_VALUE, Long.MAX_VALUE));
    }

    /**
     * The shape the API has always answered in (it matches what the Python driver's types printed),
     * each part charged to `budget` as it is made, so a value past a bound is never built whole.
     */
    static Object plain(Object value, Budget budget) {
        if (value instanceof Node node) {
            budget.charge(64, 32);
            return Map.of("labels", labels(node, budget), "properties", properties(node, budget));
        }
        if (value instanceof Relationship rel) {
            budget.charge(64, 32);
            return Map.of("type", charged(rel.getType().name(), budget), "properties", properties(rel, budget));
        }
        if (value instanceof Path path) {
            budget.charge(64, 40);
            List<Object> nodes = new ArrayList<>();
            List<Object> rels = new ArrayList<>();
            path.nodes().forEach(n -> nodes.add(plain(n, budget)));
            path.relationships().forEach(r -> rels.add(plain(r, budget)));
            return Map.of("nodes", nodes, "relationships", rels);
        }
        if (value instanceof Map<?, ?> map) {
            budget.charge(48, 2);
            Map<String, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(charged(String.valueOf(k), budget), plain(v, budget)));
            return out;
        }
        if (value instanceof Iterable<?> list) {
            budget.charge(40, 2);
            List<Object> out = new ArrayList<>();
            list.forEach(v -> out.add(plain(v, budget)));
            return out;
        }
        if (value != null && value.getClass().isArray()) {
            return array(value, budget);
        }
        Object plain = scalar(value);
        if (plain instanceof String text) {
            return charged(text, budget);
        }
        budget.charge(24, plain instanceof Map<?, ?> ? 64 : 24);
        return plain;
    }

    /** A string charged at its heap size and its JSON length (escapes can double it; counted once). */
    private static String charged(String text, Budget budget) {
        budget.charge(48L + text.length() * 2L, text.length() + 4L);
        return text;
    }

    /** The record id when the value is a Record node, else null (the rows are then not records). */
    static String recordId(Object value) {
        if (value instanceof Node node && node.hasLabel(Label.label("Record"))) {
            Object id = node.getProperty("id", null);
            return id instanceof String s ? s : null;
        }
        return null;
    }

    private static List<String> labels(Node node, Budget budget) {
        List<String> names = new ArrayList<>();
        node.getLabels().forEach(l -> names.add(charged(l.name(), budget)));
        names.sort(null);
        return names;
    }

    private static Map<String, Object> properties(Entity entity, Budget budget) {
        // Sorted: the order a store keeps properties in follows the copy's history, not its content.
        Map<String, Object> out = new TreeMap<>();
        entity.getAllProperties().forEach((k, v) -> out.put(charged(k, budget), plain(v, budget)));
        return out;
    }

    private static Object array(Object value, Budget budget) {
        if (value instanceof byte[] bytes) {
            budget.charge(48L + bytes.length * 3L, bytes.length * 4L / 3 + 4);
            return Base64.getEncoder().encodeToString(bytes);
        }
        int length = java.lang.reflect.Array.getLength(value);
        budget.charge(40, 2);
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < length; i++) {
            out.add(plain(java.lang.reflect.Array.get(value, i), budget));
        }
        return out;
    }

    private static Object scalar(Object value) {
        if (value instanceof Double d && !Double.isFinite(d)) {
            return d.isNaN() ? "NaN" : (d > 0 ? "Infinity" : "-Infinity");
        }
        if (value instanceof Float f) {
            return scalar(f.doubleValue());
        }
        if (value instanceof Character c) {
            return String.valueOf(c);
        }
        if (value instanceof Point point) {
            return Map.of("srid", point.getCRS().getCode(), "coordinates", point.getCoordinate().getCoordinate());
        }
        if (value instanceof LocalDate date) {
            return date.toString();
        }
        if (value instanceof LocalTime time) {
            return TIME.format(time);
        }
        if (value instanceof OffsetTime time) {
            return TIME.format(time) + OFFSET.format(time);
        }
        if (value instanceof LocalDateTime at) {
            return at.toLocalDate() + "T" + TIME.format(at);
        }
        if (value instanceof ZonedDateTime at) {
            return at.toLocalDate() + "T" + TIME.format(at) + OFFSET.format(at);
        }
        if (value instanceof DurationValue duration) {
            return duration(duration);
        }
        if (value instanceof java.time.Period period) {
            return duration(DurationValue.duration(period));
        }
        if (value instanceof java.time.Duration clock) {
            return duration(DurationValue.duration(clock));
        }
        return value;
    }

    /** ISO 8601 as the API has always printed durations: years and months, days, then the clock. */
    static String duration(DurationValue value) {
        long months = value.get(java.time.temporal.ChronoUnit.MONTHS);
        long days = value.get(java.time.temporal.ChronoUnit.DAYS);
        long seconds = value.get(java.time.temporal.ChronoUnit.SECONDS);
        long nanos = value.get(java.time.temporal.ChronoUnit.NANOS);
        StringBuilder clock = new StringBuilder();
        long hours = seconds / 3600;
        long minutes = (seconds % 3600) / 60;
        long rest = seconds % 60;
        if (hours != 0) {
            clock.append(hours).append('H');
        }
        if (minutes != 0) {
            clock.append(minutes).append('M');
        }
        if (nanos != 0) {
            String fraction = String.format("%09d", Math.abs(nanos)).replaceAll("0+$", "");
            clock.append(nanos < 0 || rest < 0 ? "-" : "").append(Math.abs(rest)).append('.').append(fraction).append('S');
        } else if (rest != 0) {
            clock.append(rest).append('S');
        }
        StringBuilder out = new StringBuilder();
        if (months / 12 != 0) {
            out.append(months / 12).append('Y');
        }
        if (months % 12 != 0) {
            out.append(months % 12).append('M');
        }
        if (days != 0) {
            out.append(days).append('D');
        }
        if (clock.length() > 0) {
            out.append('T').append(clock);
        }
        return out.length() == 0 ? "PT0S" : "P" + out;
    }
}
