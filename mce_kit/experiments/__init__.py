"""mce_kit.experiments"""
