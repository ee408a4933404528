// What the Java peer (peers.Peer) needs of gremlin-driver 3.7.3: a gremlin-groovy script over
// WebSocket, GraphBinary 1 (no --compression: the 3.x WebSocket route has none here). Compiled
// instead of src/tp4's Driver by the pom's profile tp3 (`mvn -Ptp3 package`).
package peers;

import java.net.URI;
import java.util.List;
import org.apache.tinkerpop.gremlin.driver.Cluster;
import org.apache.tinkerpop.gremlin.util.ser.Serializers;

final class Driver {
    /** The peer's name in its JSON line. */
    static final String NAME = "java3";
    static final String DEFAULT_URL = "ws://127.0.0.1:8186/gremlin";
    static final List<String> COMPRESSIONS = List.of("none");

    private Driver() {}

    /**
     * A cluster for `url` whose pool holds `pool` connections (min = max); with the environment
     * variable PEER_DEFAULTS=1 (the WAN bench's "defaults" rows) the driver's own pool (2 to 8
     * connections) instead, the rest kept as below.
     */
    static Cluster cluster(final String url, final String compression, final int pool) {
        final URI uri = URI.create(url);
        if ("1".equals(System.getenv("PEER_DEFAULTS")))
            return Cluster.build(uri.getHost())
                    .port(uri.getPort())
                    .path(uri.getPath())
                    .serializer(Serializers.GRAPHBINARY_V1)
                    .maxWaitForConnection(120_000)
                    .maxContentLength(64 * 1024 * 1024)
                    .enableUserAgentOnConnect(false)
                    .create();
        return Cluster.build(uri.getHost())
                .port(uri.getPort())
                .path(uri.getPath())
                .serializer(Serializers.GRAPHBINARY_V1)
                .minConnectionPoolSize(pool)
                .maxConnectionPoolSize(pool)
                .maxWaitForConnection(120_000)
                .maxContentLength(64 * 1024 * 1024)
                .enableUserAgentOnConnect(false)
                .create();
    }
}
