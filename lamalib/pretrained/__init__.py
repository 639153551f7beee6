"""Weights the course ships as package data (chapter "Pretraining"):
``course_encoder/``, the pretrained encoder that
``lamalib.models.pretrained.load_course_encoder`` reads offline."""
