"""mce_kit.viz"""
