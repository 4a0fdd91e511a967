package engine

// ArgumentExtractionSchema exposes the extraction schema to the external
// tests.
const ArgumentExtractionSchema = argumentExtractionSchema
