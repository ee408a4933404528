// What the Java peer (peers.Peer) needs of gremlin-driver 4.0.0-beta.3: GraphBinary 4 over HTTP,
// bulkResults off. Compiled instead of src/tp3's Driver by the pom's default profile, tp4.
package peers;

import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.util.List;
import org.apache.tinkerpop.gremlin.driver.Cluster;
import org.apache.tinkerpop.gremlin.driver.Compression;

final class Driver {
    /** The peer's name in its JSON line. */
    static final String NAME = "java";
    static final String DEFAULT_URL = "http://127.0.0.1:8182/gremlin";
    static final List<String> COMPRESSIONS = List.of("none", "deflate");

    private Driver() {}

    /**
     * A cluster for `url` whose pool holds `pool` connections; with the environment variable
     * PEER_DEFAULTS=1 (the WAN bench's "defaults" rows) the driver's own pool size and
     * compression instead (128 connections, deflate), only bulkResults and the wait for a
     * connection (a timeout, not a speed setting) kept as below. An https:// `url` is trusted
     * through the PEM root certificate named by SSL_CERT_FILE when set (as the other peers).
     */
    static Cluster cluster(final String url, final String compression, final int pool)
            throws Exception {
        if ("1".equals(System.getenv("PEER_DEFAULTS")))
            return tls(Cluster.build()
                    .url(url)
                    .bulkResults(false)
                    .maxWaitForConnection(120_000)
                    .enableUserAgentOnConnect(false), url)
                    .create();
        return tls(Cluster.build()
                .url(url)
                .compression(compression.equals("deflate") ? Compression.DEFLATE : Compression.NONE)
                .bulkResults(false)
                .maxConnections(pool)
                .maxWaitForConnection(120_000)
                .enableUserAgentOnConnect(false), url)
                .create();
    }

    private static Cluster.Builder tls(final Cluster.Builder b, final String url) throws Exception {
        if (!url.startsWith("https:")) return b;
        b.enableSsl(true);
        final String roots = System.getenv("SSL_CERT_FILE");
        if (roots != null)
            b.ssl(SslContextBuilder.forClient().trustManager(new File(roots)).build());
        return b;
    }
}
