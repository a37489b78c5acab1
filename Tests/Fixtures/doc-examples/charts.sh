# docs/charts.md's examples: the demo habits kept since 2026-09-01 (see make-charts.sh).
habitto import "$HABITTO_SOURCE/Tests/Fixtures/doc-examples/charts.json" --from json
