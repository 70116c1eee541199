//! JSON machinery shared by the JSON tools: paths, shapes and windows over arrays.
