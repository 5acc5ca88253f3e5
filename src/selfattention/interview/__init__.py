"""The bilingual interview question bank (YAML cards), its Sphinx rendering and the rehearsal tools."""
