"""The __init__ bodies of frozen records of up to 26 fields and of every other shape
of the package's records (records._init_of puts each class's own names in one):
compiled with the package, where records would compile one for each record a command
meets. Written by records.record_bodies_source(); tests/test_records.py holds this
file to it."""

# mypy: ignore-errors
# ruff: noqa: F821 (_set, _NO_VALUE and _factory_N are the globals of each __init__
# made from a body)

def _frozen_0(self):
    pass

def _frozen_1(self, _f0_):
    _set(self, '_f0_', _f0_)

def _frozen_2(self, _f0_, _f1_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)

def _frozen_3(self, _f0_, _f1_, _f2_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)

def _frozen_4(self, _f0_, _f1_, _f2_, _f3_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)

def _frozen_5(self, _f0_, _f1_, _f2_, _f3_, _f4_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)

def _frozen_6(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)

def _frozen_7(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)

def _frozen_8(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)

def _frozen_9(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)

def _frozen_10(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)

def _frozen_11(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)

def _frozen_12(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)

def _frozen_13(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)

def _frozen_14(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)

def _frozen_15(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)

def _frozen_16(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)

def _frozen_17(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)

def _frozen_18(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)

def _frozen_19(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_, _f18_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)
    _set(self, '_f18_', _f18_)

def _frozen_20(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_, _f18_, _f19_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)
    _set(self, '_f18_', _f18_)
    _set(self, '_f19_', _f19_)

def _frozen_21(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_, _f18_, _f19_, _f20_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)
    _set(self, '_f18_', _f18_)
    _set(self, '_f19_', _f19_)
    _set(self, '_f20_', _f20_)

def _frozen_22(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_, _f18_, _f19_, _f20_, _f21_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)
    _set(self, '_f18_', _f18_)
    _set(self, '_f19_', _f19_)
    _set(self, '_f20_', _f20_)
    _set(self, '_f21_', _f21_)

def _frozen_23(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_, _f18_, _f19_, _f20_, _f21_, _f22_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)
    _set(self, '_f18_', _f18_)
    _set(self, '_f19_', _f19_)
    _set(self, '_f20_', _f20_)
    _set(self, '_f21_', _f21_)
    _set(self, '_f22_', _f22_)

def _frozen_24(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_, _f18_, _f19_, _f20_, _f21_, _f22_, _f23_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)
    _set(self, '_f18_', _f18_)
    _set(self, '_f19_', _f19_)
    _set(self, '_f20_', _f20_)
    _set(self, '_f21_', _f21_)
    _set(self, '_f22_', _f22_)
    _set(self, '_f23_', _f23_)

def _frozen_25(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_, _f18_, _f19_, _f20_, _f21_, _f22_, _f23_,
               _f24_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)
    _set(self, '_f18_', _f18_)
    _set(self, '_f19_', _f19_)
    _set(self, '_f20_', _f20_)
    _set(self, '_f21_', _f21_)
    _set(self, '_f22_', _f22_)
    _set(self, '_f23_', _f23_)
    _set(self, '_f24_', _f24_)

def _frozen_26(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_, _f18_, _f19_, _f20_, _f21_, _f22_, _f23_,
               _f24_, _f25_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)
    _set(self, '_f18_', _f18_)
    _set(self, '_f19_', _f19_)
    _set(self, '_f20_', _f20_)
    _set(self, '_f21_', _f21_)
    _set(self, '_f22_', _f22_)
    _set(self, '_f23_', _f23_)
    _set(self, '_f24_', _f24_)
    _set(self, '_f25_', _f25_)

def _frozen_27(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_, _f18_, _f19_, _f20_, _f21_, _f22_, _f23_,
               _f24_, _f25_, _f26_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)
    _set(self, '_f18_', _f18_)
    _set(self, '_f19_', _f19_)
    _set(self, '_f20_', _f20_)
    _set(self, '_f21_', _f21_)
    _set(self, '_f22_', _f22_)
    _set(self, '_f23_', _f23_)
    _set(self, '_f24_', _f24_)
    _set(self, '_f25_', _f25_)
    _set(self, '_f26_', _f26_)

def _frozen_28(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_, _f10_, _f11_,
               _f12_, _f13_, _f14_, _f15_, _f16_, _f17_, _f18_, _f19_, _f20_, _f21_, _f22_, _f23_,
               _f24_, _f25_, _f26_, _f27_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)
    _set(self, '_f18_', _f18_)
    _set(self, '_f19_', _f19_)
    _set(self, '_f20_', _f20_)
    _set(self, '_f21_', _f21_)
    _set(self, '_f22_', _f22_)
    _set(self, '_f23_', _f23_)
    _set(self, '_f24_', _f24_)
    _set(self, '_f25_', _f25_)
    _set(self, '_f26_', _f26_)
    _set(self, '_f27_', _f27_)

def _frozen_pffpp(self, _f0_, _f1_, _f2_, _f3_, _f4_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _factory_1() if _f1_ is _NO_VALUE else _f1_)
    _set(self, '_f2_', _factory_2() if _f2_ is _NO_VALUE else _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)

def _frozen_post_pppppp(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    self.__post_init__()

def _frozen_ppfppf(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _factory_2() if _f2_ is _NO_VALUE else _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _factory_5() if _f5_ is _NO_VALUE else _f5_)

def _frozen_ppppf(self, _f0_, _f1_, _f2_, _f3_, _f4_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _factory_4() if _f4_ is _NO_VALUE else _f4_)

def _frozen_ppppfff(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _factory_4() if _f4_ is _NO_VALUE else _f4_)
    _set(self, '_f5_', _factory_5() if _f5_ is _NO_VALUE else _f5_)
    _set(self, '_f6_', _factory_6() if _f6_ is _NO_VALUE else _f6_)

def _frozen_ppppfpp(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _factory_4() if _f4_ is _NO_VALUE else _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)

def _frozen_ppppppfp(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _factory_6() if _f6_ is _NO_VALUE else _f6_)
    _set(self, '_f7_', _f7_)

def _frozen_pppppppf(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _factory_7() if _f7_ is _NO_VALUE else _f7_)

def _frozen_ppppppppfpppppppp(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_,
                              _f10_, _f11_, _f12_, _f13_, _f14_, _f15_, _f16_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _factory_8() if _f8_ is _NO_VALUE else _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)

def _frozen_pppppppppf(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _factory_9() if _f9_ is _NO_VALUE else _f9_)

def _frozen_ppppppppppppfppppp(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_,
                               _f10_, _f11_, _f12_, _f13_, _f14_, _f15_, _f16_, _f17_):
    _set(self, '_f0_', _f0_)
    _set(self, '_f1_', _f1_)
    _set(self, '_f2_', _f2_)
    _set(self, '_f3_', _f3_)
    _set(self, '_f4_', _f4_)
    _set(self, '_f5_', _f5_)
    _set(self, '_f6_', _f6_)
    _set(self, '_f7_', _f7_)
    _set(self, '_f8_', _f8_)
    _set(self, '_f9_', _f9_)
    _set(self, '_f10_', _f10_)
    _set(self, '_f11_', _f11_)
    _set(self, '_f12_', _factory_12() if _f12_ is _NO_VALUE else _f12_)
    _set(self, '_f13_', _f13_)
    _set(self, '_f14_', _f14_)
    _set(self, '_f15_', _f15_)
    _set(self, '_f16_', _f16_)
    _set(self, '_f17_', _f17_)

def _plain_fff(self, _f0_, _f1_, _f2_):
    self._f0_ = _factory_0() if _f0_ is _NO_VALUE else _f0_
    self._f1_ = _factory_1() if _f1_ is _NO_VALUE else _f1_
    self._f2_ = _factory_2() if _f2_ is _NO_VALUE else _f2_

def _plain_ffff(self, _f0_, _f1_, _f2_, _f3_):
    self._f0_ = _factory_0() if _f0_ is _NO_VALUE else _f0_
    self._f1_ = _factory_1() if _f1_ is _NO_VALUE else _f1_
    self._f2_ = _factory_2() if _f2_ is _NO_VALUE else _f2_
    self._f3_ = _factory_3() if _f3_ is _NO_VALUE else _f3_

def _plain_fffppp(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_):
    self._f0_ = _factory_0() if _f0_ is _NO_VALUE else _f0_
    self._f1_ = _factory_1() if _f1_ is _NO_VALUE else _f1_
    self._f2_ = _factory_2() if _f2_ is _NO_VALUE else _f2_
    self._f3_ = _f3_
    self._f4_ = _f4_
    self._f5_ = _f5_

def _plain_post_ppppppfffpppp(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_,
                              _f10_, _f11_, _f12_):
    self._f0_ = _f0_
    self._f1_ = _f1_
    self._f2_ = _f2_
    self._f3_ = _f3_
    self._f4_ = _f4_
    self._f5_ = _f5_
    self._f6_ = _factory_6() if _f6_ is _NO_VALUE else _f6_
    self._f7_ = _factory_7() if _f7_ is _NO_VALUE else _f7_
    self._f8_ = _factory_8() if _f8_ is _NO_VALUE else _f8_
    self._f9_ = _f9_
    self._f10_ = _f10_
    self._f11_ = _f11_
    self._f12_ = _f12_
    self.__post_init__()

def _plain_pp(self, _f0_, _f1_):
    self._f0_ = _f0_
    self._f1_ = _f1_

def _plain_ppp(self, _f0_, _f1_, _f2_):
    self._f0_ = _f0_
    self._f1_ = _f1_
    self._f2_ = _f2_

def _plain_pppfffffff(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_):
    self._f0_ = _f0_
    self._f1_ = _f1_
    self._f2_ = _f2_
    self._f3_ = _factory_3() if _f3_ is _NO_VALUE else _f3_
    self._f4_ = _factory_4() if _f4_ is _NO_VALUE else _f4_
    self._f5_ = _factory_5() if _f5_ is _NO_VALUE else _f5_
    self._f6_ = _factory_6() if _f6_ is _NO_VALUE else _f6_
    self._f7_ = _factory_7() if _f7_ is _NO_VALUE else _f7_
    self._f8_ = _factory_8() if _f8_ is _NO_VALUE else _f8_
    self._f9_ = _factory_9() if _f9_ is _NO_VALUE else _f9_

def _plain_ppppf(self, _f0_, _f1_, _f2_, _f3_, _f4_):
    self._f0_ = _f0_
    self._f1_ = _f1_
    self._f2_ = _f2_
    self._f3_ = _f3_
    self._f4_ = _factory_4() if _f4_ is _NO_VALUE else _f4_

def _plain_ppppppp(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_):
    self._f0_ = _f0_
    self._f1_ = _f1_
    self._f2_ = _f2_
    self._f3_ = _f3_
    self._f4_ = _f4_
    self._f5_ = _f5_
    self._f6_ = _f6_

def _plain_pppppppppf(self, _f0_, _f1_, _f2_, _f3_, _f4_, _f5_, _f6_, _f7_, _f8_, _f9_):
    self._f0_ = _f0_
    self._f1_ = _f1_
    self._f2_ = _f2_
    self._f3_ = _f3_
    self._f4_ = _f4_
    self._f5_ = _f5_
    self._f6_ = _f6_
    self._f7_ = _f7_
    self._f8_ = _f8_
    self._f9_ = _factory_9() if _f9_ is _NO_VALUE else _f9_
