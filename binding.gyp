{
  "targets": [
    {
      "target_name": "ragdesk_hnsw",
      "sources": ["adapters/hnsw/native/graph.cc", "adapters/hnsw/native/inner-product.cc", "adapters/hnsw/native/links-file.cc", "adapters/hnsw/native/partial-search.cc", "adapters/hnsw/native/reachability.cc", "adapters/hnsw/native/similarity.cc"],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "<!(node -p \"var path = require('path'), shipped = path.join('dist', 'vendor', 'hnswlib'); require('fs').existsSync(shipped) ? shipped : path.join(path.dirname(require.resolve('hnswlib-node/package.json')), 'src')\")"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-Wno-type-limits", "-Wno-unused-function", "-Wno-unused-parameter"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "MACOSX_DEPLOYMENT_TARGET": "10.15"
      },
      "msvs_settings": { "VCCLCompilerTool": { "ExceptionHandling": 1 } }
    }
  ]
}
