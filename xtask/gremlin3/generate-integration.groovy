// `cargo xtask server3 --dataset integration`: the graphs of TinkerPop's Gherkin suite, after
// TinkerPop's gremlin-server/src/test/scripts/generate-all.groovy (3.x): a LifeCycleHook fills
// the toy graphs before the port is bound, and each graph gets its traversal source. The id
// managers come from tinkergraph-integration.properties instead of that script's reflection.
def globals = [:]

globals << [hook : [
  onStartUp: { ctx ->
    ctx.logger.info("Loading the integration graphs.")
    org.apache.tinkerpop.gremlin.tinkergraph.structure.TinkerFactory.generateClassic(classic)
    org.apache.tinkerpop.gremlin.tinkergraph.structure.TinkerFactory.generateModern(modern)
    org.apache.tinkerpop.gremlin.tinkergraph.structure.TinkerFactory.generateTheCrew(crew)
    org.apache.tinkerpop.gremlin.tinkergraph.structure.TinkerFactory.generateGratefulDead(grateful)
    org.apache.tinkerpop.gremlin.tinkergraph.structure.TinkerFactory.generateKitchenSink(sink)
  }
] as LifeCycleHook]

// `g` is the modern graph, as in generate-modern.groovy (the start-up probe counts 6 vertices).
globals << [g : traversal().withEmbedded(modern)]
globals << [ggraph : traversal().withEmbedded(graph)]
globals << [gnullable : traversal().withEmbedded(nullable)]
globals << [gclassic : traversal().withEmbedded(classic)]
globals << [gmodern : traversal().withEmbedded(modern)]
globals << [gcrew : traversal().withEmbedded(crew)]
globals << [ggrateful : traversal().withEmbedded(grateful)]
globals << [gsink : traversal().withEmbedded(sink)]
globals
