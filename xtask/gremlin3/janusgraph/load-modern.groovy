// The modern graph, built with plain traversals (TinkerFactory.generateModern takes only a
// TinkerGraph); JanusGraph assigns its own ids.
def globals = [:]
globals << [hook : [
  onStartUp: { ctx ->
    ctx.logger.info("Loading 'modern' graph data.")
    def t = graph.traversal()
    def v = [:]
    [[1,'person','marko',29,null],[2,'person','vadas',27,null],[3,'software','lop',null,'java'],
     [4,'person','josh',32,null],[5,'software','ripple',null,'java'],[6,'person','peter',35,null]].each { id, label, name, age, lang ->
      def x = t.addV(label).property('name', name)
      if (age != null) x = x.property('age', age)
      if (lang != null) x = x.property('lang', lang)
      v[id] = x.next()
    }
    [[1,'knows',2,0.5d],[1,'knows',4,1.0d],[1,'created',3,0.4d],[4,'created',5,1.0d],[4,'created',3,0.4d],[6,'created',3,0.2d]].each { a, label, b, w ->
      t.addE(label).from(v[a]).to(v[b]).property('weight', w).iterate()
    }
    graph.tx().commit()
  }
] as LifeCycleHook]
globals << [g : traversal().withEmbedded(graph)]
