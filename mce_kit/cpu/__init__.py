"""mce_kit.cpu"""
