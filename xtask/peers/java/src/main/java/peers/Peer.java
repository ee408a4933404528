// Java peer for `cargo xtask bench`: the TinkerPop Java driver submits a script, drains every
// result and prints one JSON measurement line. Command line and output: see
// xtask/peers/README.md. One source for both driver generations: what differs (the cluster's
// settings, the peer's name) is `Driver`, from src/tp4/java (gremlin-driver 4.0.0-beta.3,
// gremlin-lang over HTTP, GraphBinary 4: peer `java`, the pom's default profile) or
// src/tp3/java (gremlin-driver 3.7.3, gremlin-groovy over WebSocket, GraphBinary 1: peer
// `java3`, `mvn -Ptp3`).
package peers;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.tinkerpop.gremlin.driver.Client;
import org.apache.tinkerpop.gremlin.driver.Cluster;

public final class Peer {
    private String url = Driver.DEFAULT_URL;
    private String query = "g.V()";
    private String mode = "latency";
    private int runs = 5;
    private int concurrency = 64;
    private int requests = 1000;
    private int warmup = -1;
    private String compression = "none";

    public static void main(final String[] args) {
        final Peer p = new Peer();
        try {
            p.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("java peer: " + e.getMessage());
            System.exit(2);
        }
        int code = 0;
        try {
            System.out.println(p.run());
        } catch (Throwable e) {
            final Throwable root = e.getCause() != null ? e.getCause() : e;
            System.err.println("java peer: " + root);
            code = 1;
        }
        System.out.flush();
        // The driver's non-daemon threads may linger after close; exit explicitly.
        System.exit(code);
    }

    private void parse(final String[] args) {
        for (int i = 0; i < args.length; i++) {
            final String flag = args[i];
            if (i + 1 >= args.length) throw new IllegalArgumentException("missing value for " + flag);
            final String v = args[++i];
            switch (flag) {
                case "--url": url = v; break;
                case "--query": query = v; break;
                case "--mode": mode = v; break;
                case "--runs": runs = Integer.parseInt(v); break;
                case "--concurrency": concurrency = Integer.parseInt(v); break;
                case "--requests": requests = Integer.parseInt(v); break;
                case "--warmup": warmup = Integer.parseInt(v); break;
                case "--compression": compression = v; break;
                default: throw new IllegalArgumentException("unknown flag " + flag);
            }
        }
        if (!mode.equals("latency") && !mode.equals("throughput"))
            throw new IllegalArgumentException("--mode must be latency or throughput");
        if (!Driver.COMPRESSIONS.contains(compression))
            throw new IllegalArgumentException("--compression must be " + String.join(" or ", Driver.COMPRESSIONS));
        if (runs < 1 || concurrency < 1 || requests < 1)
            throw new IllegalArgumentException("--runs, --concurrency and --requests must be >= 1");
        if (warmup < 0) warmup = mode.equals("latency") ? 1 : concurrency;
    }

    private static double cpuSeconds() {
        final java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean)
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() / 1e9;
        return -1;
    }

    private String run() throws Exception {
        final int pool = mode.equals("throughput") ? concurrency : 1;
        final Cluster cluster = Driver.cluster(url, compression, pool);
        final Client client = cluster.connect();
        try {
            final StringBuilder line = new StringBuilder("{\"peer\":").append(json(Driver.NAME)).append(",\"mode\":")
                    .append(json(mode)).append(",\"query\":").append(json(query))
                    .append(",\"compression\":").append(json(compression));
            if (mode.equals("latency")) {
                long count = -1;
                for (int i = 0; i < warmup; i++) count = check(count, one(client), i);
                final List<Double> times = new ArrayList<>();
                final double cpu0 = cpuSeconds();
                for (int i = 0; i < runs; i++) {
                    final long t0 = System.nanoTime();
                    final long n = one(client);
                    times.add((System.nanoTime() - t0) / 1e9);
                    count = check(count, n, i);
                }
                final double cpu = cpuSeconds() - cpu0;
                line.append(",\"runs\":[");
                for (int i = 0; i < times.size(); i++) line.append(i == 0 ? "" : ",").append(num(times.get(i)));
                line.append("],\"results\":").append(count).append(",\"bytes\":null,\"cpu_secs\":").append(num(cpu));
            } else {
                if (warmup > 0) fanOut(client, warmup);
                final double cpu0 = cpuSeconds();
                final long t0 = System.nanoTime();
                final long count = fanOut(client, requests);
                final double wall = (System.nanoTime() - t0) / 1e9;
                final double cpu = cpuSeconds() - cpu0;
                line.append(",\"concurrency\":").append(concurrency).append(",\"requests\":").append(requests)
                        .append(",\"wall_secs\":").append(num(wall)).append(",\"req_per_sec\":").append(num(requests / wall))
                        .append(",\"results\":").append(count).append(",\"bytes\":null,\"cpu_secs\":").append(num(cpu));
            }
            return line.append('}').toString();
        } finally {
            client.close();
            cluster.close();
        }
    }

    private long one(final Client client) throws Exception {
        return client.submit(query).all().get().size();
    }

    private static long check(final long expected, final long got, final int i) {
        if (expected >= 0 && expected != got)
            throw new IllegalStateException("request " + (i + 1) + " returned " + got + " results, earlier " + expected);
        return got;
    }

    /** n requests with at most `concurrency` in flight (the pool is sized to the same C); all must agree. */
    private long fanOut(final Client client, final int n) throws Exception {
        final Semaphore inFlight = new Semaphore(concurrency);
        final AtomicLong count = new AtomicLong(-1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final CompletableFuture<?>[] all = new CompletableFuture<?>[n];
        for (int i = 0; i < n && failure.get() == null; i++) {
            inFlight.acquire();
            all[i] = client.submitAsync(query)
                    .thenCompose(rs -> rs.all())
                    .whenComplete((results, err) -> {
                        inFlight.release();
                        if (err != null) {
                            failure.compareAndSet(null, err);
                            return;
                        }
                        final long got = results.size();
                        if (!count.compareAndSet(-1, got) && count.get() != got)
                            failure.compareAndSet(null, new IllegalStateException(
                                    "inconsistent result counts: " + got + " vs " + count.get()));
                    });
        }
        for (final CompletableFuture<?> f : all) {
            if (f == null) break;
            try {
                f.join();
            } catch (Exception ignored) {
                // recorded in `failure`
            }
        }
        if (failure.get() != null) throw new RuntimeException(failure.get());
        return count.get();
    }

    private static String num(final double d) {
        return String.format(Locale.ROOT, "%.6f", d);
    }

    private static String json(final String s) {
        final StringBuilder b = new StringBuilder("\"");
        for (final char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
}
