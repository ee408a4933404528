// TinkerPop's gremlin-server/scripts/generate-modern.groovy: load the modern graph on start-up
// and bind the traversal source `g`.
def globals = [:]

globals << [hook : [
  onStartUp: { ctx ->
    ctx.logger.info("Loading 'modern' graph data.")
    org.apache.tinkerpop.gremlin.tinkergraph.structure.TinkerFactory.generateModern(graph)
  }
] as LifeCycleHook]

globals << [g : traversal().withEmbedded(graph)]
