// What the Java peer (peers.Peer) needs of gremlin-driver 3.7.3: a gremlin-groovy script over
// WebSocket, GraphBinary 1, --compression none or deflate (WebSocket permessage-deflate). Compiled
// instead of src/tp4's Driver by the pom's profile tp3 (`mvn -Ptp3 package`).
package peers;

import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.net.URI;
import java.util.List;
import org.apache.tinkerpop.gremlin.driver.Cluster;
import org.apache.tinkerpop.gremlin.util.ser.Serializers;

final class Driver {
    /** The peer's name in its JSON line. */
    static final String NAME = "java3";
    static final String DEFAULT_URL = "ws://127.0.0.1:8186/gremlin";
    static final List<String> COMPRESSIONS = List.of("none", "deflate");

    private Driver() {}

    /**
     * A cluster for `url` whose pool holds `pool` connections (min = max); with the environment
     * variable PEER_DEFAULTS=1 (the WAN bench's "defaults" rows) the driver's own pool (2 to 8
     * connections) and compression (permessage-deflate, on) instead, the rest kept as below. A wss:// `url` is trusted through the PEM
     * root certificate named by SSL_CERT_FILE when set (as the other peers).
     */
    static Cluster cluster(final String url, final String compression, final int pool)
            throws Exception {
        final URI uri = URI.create(url);
        if ("1".equals(System.getenv("PEER_DEFAULTS")))
            return tls(Cluster.build(uri.getHost()), url)
                    .port(uri.getPort())
                    .path(uri.getPath())
                    .serializer(Serializers.GRAPHBINARY_V1)
                    .maxWaitForConnection(120_000)
                    .maxContentLength(64 * 1024 * 1024)
                    .enableUserAgentOnConnect(false)
                    .create();
        return tls(Cluster.build(uri.getHost()), url)
                .port(uri.getPort())
                .path(uri.getPath())
                .serializer(Serializers.GRAPHBINARY_V1)
                .minConnectionPoolSize(pool)
                .maxConnectionPoolSize(pool)
                .enableCompression(compression.equals("deflate"))
                .maxWaitForConnection(120_000)
                .maxContentLength(64 * 1024 * 1024)
                .enableUserAgentOnConnect(false)
                .create();
    }

    private static Cluster.Builder tls(final Cluster.Builder b, final String url) throws Exception {
        if (!url.startsWith("wss:")) return b;
        b.enableSsl(true);
        final String roots = System.getenv("SSL_CERT_FILE");
        if (roots != null)
            b.sslContext(SslContextBuilder.forClient().trustManager(new File(roots)).build());
        return b;
    }
}
