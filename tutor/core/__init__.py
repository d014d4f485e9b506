"""Pure computation behind every number the lesson shows.

Imports numpy, tokenizers and safetensors only; never textual; torch only in `train`.
"""
