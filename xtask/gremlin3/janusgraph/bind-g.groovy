// The start-up script of a JanusGraph Server on Cassandra (`cargo xtask cluster`): the graph is
// shared by every server of the cluster, so none loads data; this only binds `g`.
def globals = [:]
globals << [g : traversal().withEmbedded(graph)]
