"""What is specific to the Knowledge Packs evaluation (seed 001), kept out of the generic layers.

Owns the delta bands (`bands`: strong, moderate, neutral, slight and
significant regression) and the shapes of its summary documents. May
import nothing of assay when it runs (its summary shapes name analysis types
in annotations only); analysis, reports and review import it.
"""
