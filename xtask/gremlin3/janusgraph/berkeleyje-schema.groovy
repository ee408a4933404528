// The schema of the BerkeleyJE + Lucene JanusGraph (`--backend berkeleyje`), made at the first
// start and kept on disk: in the Lucene mixed index `byText` (backend `search`), `name`
// full-text (Mapping.TEXT: textContains*, no equality), `tag` whole-string (Mapping.STRING:
// equality, textPrefix, textRegex, textFuzzy), `place` (a Geoshape point: geoWithin,
// geoIntersect, geoDisjoint) and `area` (any Geoshape, Mapping.PREFIX_TREE: also geoContains);
// `shape` holds any Geoshape, unindexed.
def globals = [:]
globals << [hook : [
  onStartUp: { ctx ->
    def mgmt = graph.openManagement()
    if (!mgmt.containsGraphIndex('byText')) {
      def name = mgmt.makePropertyKey('name').dataType(String.class).make()
      def tag = mgmt.makePropertyKey('tag').dataType(String.class).make()
      def place = mgmt.makePropertyKey('place').dataType(Geoshape.class).make()
      def area = mgmt.makePropertyKey('area').dataType(Geoshape.class).make()
      mgmt.makePropertyKey('shape').dataType(Geoshape.class).make()
      mgmt.buildIndex('byText', Vertex.class)
          .addKey(name, Mapping.TEXT.asParameter())
          .addKey(tag, Mapping.STRING.asParameter())
          .addKey(place)
          .addKey(area, Mapping.PREFIX_TREE.asParameter())
          .buildMixedIndex('search')
      ctx.logger.info("Made the schema and the mixed index byText.")
    }
    mgmt.commit()
  }
] as LifeCycleHook]
globals << [g : traversal().withEmbedded(graph)]
