// Writes the credentials graph for SimpleAuthenticator: each user, its password hashed with
// bcrypt by TinkerPop's own CredentialTraversalSource, as a GraphSON file TinkerGraph loads.
// Run by `cargo xtask server3 --auth` with Java's source launcher:
//   java -cp 'lib/*' MakeCredentials.java USER PASSWORD [USER PASSWORD ...] OUT.json
import java.io.FileOutputStream;
import java.io.OutputStream;

import org.apache.tinkerpop.gremlin.groovy.jsr223.dsl.credential.CredentialTraversalSource;
import org.apache.tinkerpop.gremlin.structure.io.graphson.GraphSONWriter;
import org.apache.tinkerpop.gremlin.tinkergraph.structure.TinkerGraph;

public class MakeCredentials {
    public static void main(String[] args) throws Exception {
        TinkerGraph graph = TinkerGraph.open();
        CredentialTraversalSource credentials = graph.traversal(CredentialTraversalSource.class);
        for (int i = 0; i + 1 < args.length - 1; i += 2) {
            credentials.user(args[i], args[i + 1]).iterate();
        }
        try (OutputStream out = new FileOutputStream(args[args.length - 1])) {
            GraphSONWriter.build().create().writeGraph(out, graph);
        }
        System.exit(0);
    }
}
